public import Foundation

/// The user's unread total: the number every device shows on its icon.
public struct Badge: Sendable, Hashable, Codable {
    /// Unread changes over all the user's watches.
    public let count: Int
    /// Grows by one with every change of the count: of two badges, the one
    /// with the higher sequence is the newer.
    public let sequence: Int64
    /// When the count last changed.
    public let updatedAt: Date

    /// Creates a badge, as the server reports one.
    public init(count: Int, sequence: Int64, updatedAt: Date) {
        self.count = count
        self.sequence = sequence
        self.updatedAt = updatedAt
    }

    private enum CodingKeys: String, CodingKey {
        case count, sequence
        case updatedAt = "updated_at"
    }
}
