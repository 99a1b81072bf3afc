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
        guard let since = RFC3339Timestamp.parse(try container.decode(String.self, forKey: .since)) else {
            throw container.fieldProblem(.since, "must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z")
        }
        self.since = since
    }
}
