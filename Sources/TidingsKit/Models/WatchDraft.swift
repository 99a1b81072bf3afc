/// A new watch, for `TidingsClient.createWatch(_:)`. Only `url` is
/// required; the server fills in the rest.
public struct WatchDraft: Sendable, Hashable, Encodable {
    /// An absolute http or https URL.
    public var url: String
    /// A name; the URL's host when nil.
    public var name: String?
    /// Seconds between checks (server default 300).
    public var intervalSeconds: Int?
    /// The longest the checks may back off to while nothing changes.
    public var maxIntervalSeconds: Int?
    /// What part of the page to compare; its readable text when nil.
    public var extract: ExtractionRule?
    /// What a change pushes to the user's devices (`badge` when nil).
    public var notify: WatchNotify?
    /// Request headers sent to the URL's origin (write-only).
    public var headers: [String: String]?
    /// A JSON endpoint checked before the page; needs `versionPointer`.
    public var versionURL: String?
    /// The JSON pointer into the version endpoint's answer.
    public var versionPointer: String?

    /// Creates a draft.
    public init(
        url: String, name: String? = nil, intervalSeconds: Int? = nil, maxIntervalSeconds: Int? = nil,
        extract: ExtractionRule? = nil, notify: WatchNotify? = nil, headers: [String: String]? = nil,
        versionURL: String? = nil, versionPointer: String? = nil
    ) {
        self.url = url
        self.name = name
        self.intervalSeconds = intervalSeconds
        self.maxIntervalSeconds = maxIntervalSeconds
        self.extract = extract
        self.notify = notify
        self.headers = headers
        self.versionURL = versionURL
        self.versionPointer = versionPointer
    }

    private enum CodingKeys: String, CodingKey {
        case url, name, extract, notify, headers
        case intervalSeconds = "interval_seconds"
        case maxIntervalSeconds = "max_interval_seconds"
        case versionURL = "version_url"
        case versionPointer = "version_pointer"
    }
}
