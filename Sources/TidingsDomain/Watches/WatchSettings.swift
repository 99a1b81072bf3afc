/// What a user decides about a watch: what to fetch, how often and what to
/// compare. Header values are in here (they are needed to fetch) and must not
/// leave the domain except towards the poller.
package struct WatchSettings: Sendable, Equatable {
    package static let defaultIntervalSeconds = 300
    package static let maximumNameLength = 200

    package var url: NormalizedURL
    package var headers: RequestHeaders
    package var name: String
    package var intervalSeconds: Int
    /// How long the target may wait while the content stays the same
    /// (decision 0028); at least `intervalSeconds`.
    package var maxIntervalSeconds: Int
    /// The user chose `maxIntervalSeconds`; otherwise it is the default
    /// and follows the interval.
    package var maxIntervalChosen: Bool
    package var versionCheck: VersionCheck?
    package var extract: ExtractionRule?
    package var paused: Bool
    package var notify: WatchNotify

    package init(
        url: NormalizedURL,
        headers: RequestHeaders = .none,
        name: String? = nil,
        intervalSeconds: Int = WatchSettings.defaultIntervalSeconds,
        maxIntervalSeconds: Int? = nil,
        maxIntervalChosen: Bool = false,
        versionCheck: VersionCheck? = nil,
        extract: ExtractionRule? = nil,
        paused: Bool = false,
        notify: WatchNotify = .badge
    ) {
        self.url = url
        self.headers = headers
        // Hosts are ASCII, so a prefix of characters is one of scalars too.
        self.name = name ?? String(url.host.prefix(Self.maximumNameLength))
        self.intervalSeconds = intervalSeconds
        self.maxIntervalSeconds = maxIntervalSeconds ?? intervalSeconds
        self.maxIntervalChosen = maxIntervalChosen
        self.versionCheck = versionCheck
        self.extract = extract
        self.paused = paused
        self.notify = notify
    }

    /// Whether `other` fetches something else than this: another target
    /// (the version check is part of a target since migration 0007).
    func fetchesSameTarget(as other: WatchSettings) -> Bool {
        url == other.url && headers == other.headers && versionCheck == other.versionCheck
    }

    /// Whether `other` compares content differently, so the stored hash and
    /// the check state no longer describe it.
    func comparesSameContent(as other: WatchSettings) -> Bool {
        fetchesSameTarget(as: other) && extract == other.extract
    }
}
