import FoundationEssentials
import TidingsPostgres

/// Users' badges: all SQL for the badge aggregate.
public struct BadgeStore: Sendable {
    private let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// The user's badge; nil only for a user that does not exist.
    public func badge(userID: UUID) throws -> Badge? {
        try database.query("SELECT count, sequence, updated_at FROM badges WHERE user_id = \(userID)").first.map { row in
            Badge(count: try row.decode("count"), sequence: try row.decode("sequence"), updatedAt: try row.decode("updated_at"))
        }
    }
}
