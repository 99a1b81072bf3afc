package import FoundationEssentials
package import TidingsPostgres

/// Watches' change history and reading it: all SQL for the changes
/// aggregate. Every statement is scoped by the owner.
///
/// Unread counts are never written here: marking changes read fires the
/// triggers of migration 0006, which lower the watch's count and the
/// user's badge and announce the new badge, in this same transaction.
package struct ChangeStore: Sendable {
    let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    /// A page of the watch's changes, oldest first; nil when the user has no
    /// such watch. Listing reads nothing.
    package func list(userID: UUID, watchID: UUID, page: PageRequest) throws -> Page<Change>? {
        try database.withConnection { connection in
            guard try Self.watchExists(userID: userID, watchID: watchID, on: connection) else { return nil }
            let rows = try connection.query(
                """
                SELECT id, watch_id, detected_at, previous_hash, new_hash, http_status, content_length,
                       diff, snapshot_truncated, read_at
                FROM changes
                WHERE watch_id = \(watchID) AND user_id = \(userID)
                  AND (detected_at, id) > (\(page.after.createdAt), \(page.after.id))
                ORDER BY detected_at, id
                LIMIT \(page.limit + 1)
                """)
            return Page.from(rows: try rows.map(Self.change(from:)), limit: page.limit) {
                PageCursor(createdAt: $0.detectedAt, id: $0.id)
            }
        }
    }

    /// Marks the watch's unread changes read: all of them, or only those up
    /// to and including `upTo`, so that a read racing a newer change does
    /// not swallow it. Nil when the user has no such watch. Run again
    /// should it lose a deadlock to a change being recorded: it is
    /// idempotent.
    package func markRead(userID: UUID, watchID: UUID, upTo: UUID?) throws -> ReadReceipt? {
        try database.withRetryingTransaction { connection in
            guard try Self.watchExists(userID: userID, watchID: watchID, on: connection) else { return nil }
            var bound: Int64?
            if let upTo {
                guard
                    let row = try connection.query(
                        "SELECT position FROM changes WHERE id = \(upTo) AND watch_id = \(watchID)"
                    ).first
                else {
                    throw ChangeStoreError.unknownChange(upTo)
                }
                bound = try row.decode("position", as: Int64.self)
            }
            try connection.execute(
                """
                UPDATE changes SET read_at = now()
                WHERE watch_id = \(watchID) AND read_at IS NULL
                  AND (\(bound)::bigint IS NULL OR position <= \(bound))
                """)
            // The watch (or its user) may have been deleted since it was
            // looked up: a concurrent DELETE commits between the statements.
            guard
                let row = try connection.query(
                    """
                    SELECT w.unread_count, b.count, b.sequence, b.updated_at
                    FROM watches w JOIN badges b ON b.user_id = w.user_id
                    WHERE w.id = \(watchID)
                    """
                ).first
            else { return nil }
            return ReadReceipt(
                watchID: watchID,
                unreadCount: try row.decode("unread_count"),
                badge: try BadgeStore.badge(from: row)
            )
        }
    }

    private static func watchExists(userID: UUID, watchID: UUID, on connection: PostgresConnection) throws -> Bool {
        try !connection.query("SELECT 1 FROM watches WHERE id = \(watchID) AND user_id = \(userID)").isEmpty
    }

    static func change(from row: PostgresRow) throws -> Change {
        Change(
            id: try row.decode("id"),
            watchID: try row.decode("watch_id"),
            detectedAt: try row.decode("detected_at"),
            previousHash: try row.decode("previous_hash"),
            newHash: try row.decode("new_hash"),
            httpStatus: try row.decode("http_status"),
            contentLength: try row.decode("content_length"),
            diff: try row.decode("diff"),
            snapshotTruncated: try row.decode("snapshot_truncated"),
            readAt: try row.decode("read_at")
        )
    }
}
