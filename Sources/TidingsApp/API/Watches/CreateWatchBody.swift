import TidingsDomain
import TidingsHTTPServer

/// `POST /v1/watches` body. The interval's bounds come from configuration,
/// so the controller checks them.
struct CreateWatchBody: Decodable {
    let url: NormalizedURL
    let name: String?
    let intervalSeconds: Int?
    let maxIntervalSeconds: Int?
    let versionCheck: VersionCheck?
    let extract: ExtractionRule?
    let headers: RequestHeaders
    let notify: WatchNotify?

    enum CodingKeys: String, CodingKey {
        case url, name, extract, headers, notify
        case intervalSeconds = "interval_seconds"
        case maxIntervalSeconds = "max_interval_seconds"
        case versionURL = "version_url"
        case versionPointer = "version_pointer"
        case versionHeaders = "version_headers"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try WatchValidation.url(try container.decode(String.self, forKey: .url), key: .url, in: container)
        name = try container.decodeUnlessAbsent(String.self, forKey: .name)
        if let name { try TextField.validate(name, key: .name, in: container, maxLength: WatchSettings.maximumNameLength) }
        intervalSeconds = try container.decodeIntegerIfPresent(forKey: .intervalSeconds)
        maxIntervalSeconds = try container.decodeIntegerIfPresent(forKey: .maxIntervalSeconds)
        let versionURL = try container.decodeUnlessAbsent(String.self, forKey: .versionURL).map {
            try WatchValidation.url($0, key: .versionURL, in: container)
        }
        let versionPointer = try container.decodeUnlessAbsent(String.self, forKey: .versionPointer)
        if let versionPointer { try WatchValidation.jsonPointer(versionPointer, key: .versionPointer, in: container) }
        if let problem = WatchValidation.versionPairProblem(url: versionURL, pointer: versionPointer) {
            throw container.fieldProblem(CodingKeys(stringValue: problem.field) ?? .versionURL, problem.message)
        }
        let versionHeaders = try container.decodeUnlessAbsent(RequestHeadersBody.self, forKey: .versionHeaders)?.headers
        if let versionURL, let versionPointer {
            versionCheck = VersionCheck(url: versionURL, pointer: versionPointer, headers: versionHeaders ?? .none)
        } else if versionHeaders != nil {
            throw container.fieldProblem(CodingKeys.versionHeaders, WatchValidation.versionHeadersWithoutURL)
        } else {
            versionCheck = nil
        }
        extract = try container.decodeUnlessAbsent(ExtractionRuleBody.self, forKey: .extract)?.rule
        headers = try container.decodeUnlessAbsent(RequestHeadersBody.self, forKey: .headers)?.headers ?? .none
        notify = try container.decodeChoiceUnlessAbsent(WatchNotify.self, forKey: .notify)
    }
}
