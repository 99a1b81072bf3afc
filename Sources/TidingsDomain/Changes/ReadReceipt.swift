import FoundationEssentials

/// What a read leaves behind: the watch's remaining unread changes and the
/// user's badge after them.
public struct ReadReceipt: Sendable, Equatable {
    public let watchID: UUID
    public let unreadCount: Int
    public let badge: Badge
}
