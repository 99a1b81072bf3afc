package import FoundationEssentials
package import TidingsPostgres

/// The `pushes` table: the outbox rows of direct push and each device's
/// push log. Rows are queued by `queue_pushes` (migration 0020) inside the
/// transaction that changed a count or a watch; the dispatcher side is in
/// `PushStore+Dispatch`.
package struct PushStore: Sendable {
    let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    static let columns = """
        p.id, p.device_id, p.push_app_id, p.kind, p.status, p.badge, p.watch_id, p.change_id, p.reason, p.provider_id,
        p.attempt_count, CASE WHEN p.status = 'pending' THEN p.next_attempt_at END AS next_attempt_at,
        p.last_attempt_at, p.completed_at, p.created_at, p.updated_at
        """

    /// A page of the device's pushes in creation order; nil when the user
    /// has no such device.
    package func list(deviceID: UUID, userID: UUID, _ page: PageRequest) throws -> Page<Push>? {
        try database.withTransaction { connection in
            guard try connection.query("SELECT 1 AS found FROM devices WHERE id = \(deviceID) AND user_id = \(userID)").first != nil else {
                return nil
            }
            let rows = try connection.query(
                """
                SELECT \(unsafeSQL: Self.columns) FROM pushes p
                WHERE p.device_id = \(deviceID) AND (p.created_at, p.id) > (\(page.after.createdAt), \(page.after.id))
                ORDER BY p.created_at, p.id LIMIT \(page.limit + 1)
                """)
            return Page.from(rows: try rows.map(Self.push(from:)), limit: page.limit) {
                PageCursor(createdAt: $0.createdAt, id: $0.id)
            }
        }
    }

    static func push(from row: PostgresRow) throws -> Push {
        Push(
            id: try row.decode("id"),
            deviceID: try row.decode("device_id"),
            pushAppID: try row.decode("push_app_id"),
            kind: try row.decode("kind"),
            status: try row.decode("status"),
            badge: try row.decode("badge"),
            watchID: try row.decode("watch_id"),
            changeID: try row.decode("change_id"),
            reason: try row.decode("reason"),
            providerID: try row.decode("provider_id"),
            attemptCount: try row.decode("attempt_count"),
            nextAttemptAt: try row.decode("next_attempt_at"),
            lastAttemptAt: try row.decode("last_attempt_at"),
            completedAt: try row.decode("completed_at"),
            createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at")
        )
    }
}
