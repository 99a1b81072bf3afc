import FoundationEssentials
import TidingsHTTPServer

/// `POST /v1/watches/{id}/read` body, optional: without it (or without
/// `up_to_change_id`) every unread change of the watch is read.
struct ReadWatchBody: Decodable {
    let upToChangeID: UUID?

    enum CodingKeys: String, CodingKey {
        case upToChangeID = "up_to_change_id"
    }

    init(upToChangeID: UUID? = nil) {
        self.upToChangeID = upToChangeID
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        upToChangeID = try container.decodeUnlessAbsent(UUID.self, forKey: .upToChangeID)
    }
}
