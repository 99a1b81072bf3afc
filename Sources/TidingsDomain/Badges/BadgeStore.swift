package import FoundationEssentials
package import TidingsPostgres

/// Users' badges: all SQL that reads or clears them. The count itself is
/// kept by the triggers of migration 0006 as the sum of the user's unread
/// changes; nothing here writes it directly.
package struct BadgeStore: Sendable {
    private let database: PostgresClient
    private let reads: BatchingQueue<UUID, BadgeAndOrder?>

    package init(database: PostgresClient) {
        self.database = database
        reads = BatchingQueue(
            runBatch: { try Self.badges(userIDs: $0, on: database) },
            runOne: { try Self.badgeAndOrder(userID: $0, on: database) }
        )
    }

    /// The user's badge; nil only for a user that does not exist.
    ///
    /// Concurrent reads share one query (`BatchingQueue`). A read joins only
    /// a batch whose query has not started yet, so it never sees a badge
    /// older than the moment it was asked for; each caller gets the row of
    /// its own user id and nothing else.
    package func badge(userID: UUID) throws -> Badge? {
        try reads.submit(userID)?.badge
    }

    /// The user's badge with the bounds of the user's order, batched like
    /// `badge(userID:)`; nil only for a user that does not exist.
    package func badgeAndOrder(userID: UUID) throws -> BadgeAndOrder? {
        try reads.submit(userID)
    }

    private static func badgeAndOrder(userID: UUID, on database: PostgresClient) throws -> BadgeAndOrder? {
        try database.query(
            """
            SELECT count, sequence, updated_at, last_position, trimmed_through FROM badges WHERE user_id = \(userID)
            """
        ).first.map(Self.badgeAndOrder(from:))
    }

    /// One answer (or nil) per id, in order; an id may appear several times.
    private static func badges(userIDs: [UUID], on database: PostgresClient) throws -> [BadgeAndOrder?] {
        let rows = try database.query(
            """
            SELECT user_id, count, sequence, updated_at, last_position, trimmed_through
            FROM badges WHERE user_id = ANY(\(PostgresArray(userIDs))::uuid[])
            """)
        var badges = [UUID: BadgeAndOrder](minimumCapacity: rows.count)
        for row in rows {
            badges[try row.decode("user_id", as: UUID.self)] = try Self.badgeAndOrder(from: row)
        }
        return userIDs.map { badges[$0] }
    }

    /// Marks every unread change of the user read: one statement, so the
    /// badge drops to zero in one step and one badge.updated announces it.
    /// Nil only for a user that does not exist. Run again should it lose a
    /// deadlock to a change being recorded: it is idempotent.
    package func readAll(userID: UUID) throws -> Badge? {
        try database.withRetryingTransaction { connection in
            try connection.execute("UPDATE changes SET read_at = now() WHERE user_id = \(userID) AND read_at IS NULL")
            return try connection.query("SELECT count, sequence, updated_at FROM badges WHERE user_id = \(userID)").first
                .map(Self.badge(from:))
        }
    }

    static func badge(from row: PostgresRow) throws -> Badge {
        Badge(count: try row.decode("count"), sequence: try row.decode("sequence"), updatedAt: try row.decode("updated_at"))
    }

    static func order(from row: PostgresRow) throws -> UserOrderBounds {
        UserOrderBounds(
            newest: FeedPosition(try row.decode("last_position")),
            trimmedThrough: FeedPosition(try row.decode("trimmed_through"))
        )
    }

    private static func badgeAndOrder(from row: PostgresRow) throws -> BadgeAndOrder {
        BadgeAndOrder(badge: try badge(from: row), order: try order(from: row))
    }
}
