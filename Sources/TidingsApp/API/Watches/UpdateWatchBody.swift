import TidingsDomain
import TidingsHTTPServer

/// `PATCH /v1/watches/{id}` body: only the fields present change. `null`
/// clears `version_url`/`version_pointer`, `extract`, `headers` and
/// `version_headers`, and returns `max_interval_seconds` to its default;
/// the other fields cannot be null. `headers` and
/// `version_headers` replace the whole set, since clients cannot read the
/// stored values to merge with; clearing the version check clears its
/// headers.
struct UpdateWatchBody: Decodable {
    let url: NormalizedURL?
    let name: String?
    let intervalSeconds: Int?
    /// Outer nil: absent; inner nil: back to the default, which follows the interval.
    let maxIntervalSeconds: Int??
    /// Outer nil: absent; inner nil: cleared.
    let versionURL: NormalizedURL??
    let versionPointer: String??
    let extract: ExtractionRule??
    let headers: RequestHeaders?
    let versionHeaders: RequestHeaders?
    let paused: Bool?
    let notify: WatchNotify?

    enum CodingKeys: String, CodingKey {
        case url, name, extract, headers, paused, notify
        case intervalSeconds = "interval_seconds"
        case maxIntervalSeconds = "max_interval_seconds"
        case versionURL = "version_url"
        case versionPointer = "version_pointer"
        case versionHeaders = "version_headers"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decodeUnlessAbsent(String.self, forKey: .url).map { try WatchValidation.url($0, key: .url, in: container) }
        name = try container.decodeUnlessAbsent(String.self, forKey: .name)
        if let name { try TextField.validate(name, key: .name, in: container, maxLength: WatchSettings.maximumNameLength) }
        intervalSeconds = try container.decodeIntegerIfPresent(forKey: .intervalSeconds)
        if container.contains(.maxIntervalSeconds), try container.decodeNil(forKey: .maxIntervalSeconds) {
            maxIntervalSeconds = .some(nil)
        } else {
            maxIntervalSeconds = try container.decodeIntegerIfPresent(forKey: .maxIntervalSeconds).map { .some($0) }
        }
        paused = try container.decodeUnlessAbsent(Bool.self, forKey: .paused)
        notify = try container.decodeChoiceUnlessAbsent(WatchNotify.self, forKey: .notify)
        versionURL = try Self.nullable(String.self, .versionURL, in: container).map { text in
            try text.map { try WatchValidation.url($0, key: .versionURL, in: container) }
        }
        versionPointer = try Self.nullable(String.self, .versionPointer, in: container)
        if let pointer = versionPointer ?? nil { try WatchValidation.jsonPointer(pointer, key: .versionPointer, in: container) }
        extract = try Self.nullable(ExtractionRuleBody.self, .extract, in: container).map { $0?.rule }
        headers = try Self.nullable(RequestHeadersBody.self, .headers, in: container).map { $0?.headers ?? .none }
        versionHeaders = try Self.nullable(RequestHeadersBody.self, .versionHeaders, in: container).map { $0?.headers ?? .none }
    }

    /// Applies the present fields; checks the rules that need the stored
    /// watch (a version URL never without its pointer; a maximum the user
    /// chose never below the interval, one left to default follows it).
    func apply(to settings: inout WatchSettings, intervals: IntervalBounds) throws(HTTPError) {
        if let url { settings.url = url }
        if let name { settings.name = name }
        if let intervalSeconds { settings.intervalSeconds = intervalSeconds }
        if let maxIntervalSeconds {
            settings.maxIntervalChosen = maxIntervalSeconds != nil
            if let chosen = maxIntervalSeconds { settings.maxIntervalSeconds = chosen }
        }
        if intervalSeconds != nil || maxIntervalSeconds != nil {
            try intervals.settle(&settings, maximumGiven: (maxIntervalSeconds ?? nil) != nil)
        }
        if let paused { settings.paused = paused }
        if let notify { settings.notify = notify }
        if let extract { settings.extract = extract }
        if let headers { settings.headers = headers }
        if versionURL != nil || versionPointer != nil || versionHeaders != nil {
            let url = versionURL ?? settings.versionCheck?.url
            let pointer = versionPointer ?? settings.versionCheck?.pointer
            // Clearing the version check drops its stored headers; headers
            // given in the request without one are refused.
            let storedHeaders = url == nil && pointer == nil ? nil : settings.versionCheck?.headers
            settings.versionCheck = try WatchValidation.versionCheck(
                url: url, pointer: pointer, headers: versionHeaders ?? storedHeaders ?? .none
            )
        }
    }

    /// Absent -> nil, null -> .some(nil), a value -> .some(value).
    private static func nullable<Value: Decodable>(
        _ type: Value.Type,
        _ key: CodingKeys,
        in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> Value?? {
        guard container.contains(key) else { return nil }
        if try container.decodeNil(forKey: key) { return .some(nil) }
        return .some(try container.decode(Value.self, forKey: key))
    }
}
