import FoundationEssentials
import TidingsDomain

/// The answer to a read: the watch's unread count and the user's badge.
struct ReadReceiptRepresentation: Encodable, Sendable {
    let receipt: ReadReceipt

    enum CodingKeys: String, CodingKey {
        case watchID = "watch_id"
        case unreadCount = "unread_count"
        case badge
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(receipt.watchID.canonicalString, forKey: .watchID)
        try container.encode(receipt.unreadCount, forKey: .unreadCount)
        try container.encode(BadgeRepresentation(receipt.badge), forKey: .badge)
    }
}
