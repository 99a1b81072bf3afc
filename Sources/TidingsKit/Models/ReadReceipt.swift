/// The answer to marking a watch read.
public struct ReadReceipt: Sendable, Hashable, Codable {
    /// The watch read.
    public let watchID: String
    /// Its changes still unread (those detected after the one read up to).
    public let unreadCount: Int
    /// The badge after the read.
    public let badge: Badge

    private enum CodingKeys: String, CodingKey {
        case badge
        case watchID = "watch_id"
        case unreadCount = "unread_count"
    }
}
