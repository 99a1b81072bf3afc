/// The changes `TidingsClient.updateWatch(id:_:)` makes: each property
/// left `nil` stays as it is; for the optional ones `.some(nil)` clears.
public struct WatchUpdate: Sendable, Hashable, Encodable {
    /// A new URL (the watch starts over).
    public var url: String?
    /// A new name.
    public var name: String?
    /// A new interval in seconds.
    public var intervalSeconds: Int?
    /// A new maximum interval, or `.some(nil)` for the default.
    public var maxIntervalSeconds: Int??
    /// Pauses or resumes checks.
    public var paused: Bool?
    /// What a change pushes.
    public var notify: WatchNotify?
    /// A new extraction rule, or `.some(nil)` for readable text.
    public var extract: ExtractionRule??
    /// New request headers (the whole set), or `.some(nil)` for none.
    public var headers: [String: String]??
    /// A new version endpoint, or `.some(nil)` to drop it with its pointer.
    public var versionURL: String??
    /// A new version pointer, or `.some(nil)` with `versionURL`.
    public var versionPointer: String??

    /// Creates an update; everything left out stays as it is.
    public init(
        url: String? = nil, name: String? = nil, intervalSeconds: Int? = nil, maxIntervalSeconds: Int?? = nil,
        paused: Bool? = nil, notify: WatchNotify? = nil, extract: ExtractionRule?? = nil,
        headers: [String: String]?? = nil, versionURL: String?? = nil, versionPointer: String?? = nil
    ) {
        self.url = url
        self.name = name
        self.intervalSeconds = intervalSeconds
        self.maxIntervalSeconds = maxIntervalSeconds
        self.paused = paused
        self.notify = notify
        self.extract = extract
        self.headers = headers
        self.versionURL = versionURL
        self.versionPointer = versionPointer
    }

    private enum CodingKeys: String, CodingKey {
        case url, name, paused, notify, extract, headers
        case intervalSeconds = "interval_seconds"
        case maxIntervalSeconds = "max_interval_seconds"
        case versionURL = "version_url"
        case versionPointer = "version_pointer"
    }

    /// Encodes only the fields that change, `null` for those cleared.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(intervalSeconds, forKey: .intervalSeconds)
        try container.encodeChange(maxIntervalSeconds, forKey: .maxIntervalSeconds)
        try container.encodeIfPresent(paused, forKey: .paused)
        try container.encodeIfPresent(notify, forKey: .notify)
        try container.encodeChange(extract, forKey: .extract)
        try container.encodeChange(headers, forKey: .headers)
        try container.encodeChange(versionURL, forKey: .versionURL)
        try container.encodeChange(versionPointer, forKey: .versionPointer)
    }
}
