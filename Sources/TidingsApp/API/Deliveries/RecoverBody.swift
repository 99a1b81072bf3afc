import FoundationEssentials
import TidingsHTTPServer

/// `POST /v1/webhooks/{id}/recover` body: re-queue failed deliveries
/// created at or after `since`.
struct RecoverBody: Decodable {
    let since: Date

    enum CodingKeys: String, CodingKey {
        case since
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        since = try container.decode(Date.self, forKey: .since)
    }
}
