import FoundationEssentials
import TidingsPostgres

/// Users' badges: all SQL that reads or clears them. The count itself is
/// kept by the triggers of migration 0006 as the sum of the user's unread
/// changes; nothing here writes it directly.
public struct BadgeStore: Sendable {
    private let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The user's badge; nil only for a user that does not exist.
    public func badge(userID: UUID) throws -> Badge? {
        try database.query("SELECT count, sequence, updated_at FROM badges WHERE user_id = \(userID)").first
            .map(Self.badge(from:))
    }

    /// Marks every unread change of the user read: one statement, so the
    /// badge drops to zero in one step and one badge.updated announces it.
    /// Nil only for a user that does not exist.
    public func readAll(userID: UUID) throws -> Badge? {
        try database.withTransaction { connection in
            try connection.execute("UPDATE changes SET read_at = now() WHERE user_id = \(userID) AND read_at IS NULL")
            return try connection.query("SELECT count, sequence, updated_at FROM badges WHERE user_id = \(userID)").first
                .map(Self.badge(from:))
        }
    }

    static func badge(from row: PostgresRow) throws -> Badge {
        Badge(count: try row.decode("count"), sequence: try row.decode("sequence"), updatedAt: try row.decode("updated_at"))
    }
}
