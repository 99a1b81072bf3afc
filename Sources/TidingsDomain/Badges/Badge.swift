package import FoundationEssentials

/// A user's unread total across all watches, as every device should show it.
package struct Badge: Sendable, Equatable {
    package let count: Int
    /// Grows by one with every change of `count`; receivers drop updates
    /// with a lower sequence than one they have seen.
    package let sequence: Int
    package let updatedAt: Date

    package init(count: Int, sequence: Int, updatedAt: Date) {
        self.count = count
        self.sequence = sequence
        self.updatedAt = updatedAt
    }
}
