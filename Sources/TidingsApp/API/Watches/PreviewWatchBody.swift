import TidingsDomain
import TidingsHTTPServer

/// `POST /v1/watches/preview` body: the page and the rule to try on it.
struct PreviewWatchBody: Decodable {
    let url: NormalizedURL
    let extract: ExtractionRule?

    enum CodingKeys: String, CodingKey {
        case url, extract
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try WatchValidation.url(try container.decode(String.self, forKey: .url), key: .url, in: container)
        extract = try container.decodeUnlessAbsent(ExtractionRuleBody.self, forKey: .extract)?.rule
    }
}
