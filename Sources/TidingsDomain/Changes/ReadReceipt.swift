package import FoundationEssentials

/// What a read leaves behind: the watch's remaining unread changes and the
/// user's badge after them.
package struct ReadReceipt: Sendable, Equatable {
    package let watchID: UUID
    package let unreadCount: Int
    package let badge: Badge
}
