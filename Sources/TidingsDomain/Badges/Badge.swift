import FoundationEssentials

/// A user's unread total across all watches, as every device should show it.
public struct Badge: Sendable, Equatable {
    public let count: Int
    /// Grows by one with every change of `count`; receivers drop updates
    /// with a lower sequence than one they have seen.
    public let sequence: Int
    public let updatedAt: Date

    public init(count: Int, sequence: Int, updatedAt: Date) {
        self.count = count
        self.sequence = sequence
        self.updatedAt = updatedAt
    }
}
