package import FoundationEssentials
import TidingsPostgres

/// The sync feed: every change of the user's watches in the user's one
/// order (migration 0031), with the badge read in the same snapshot.
extension ChangeStore {
    /// Up to `query.limit` changes after `query.after`, oldest first. One
    /// statement, so the changes, the badge and the user's newest position
    /// agree: every position up to that newest one has committed (positions
    /// are drawn under the badge row lock, held to commit), so a client
    /// that resumes from the returned position misses nothing.
    ///
    /// The optional filters are in the text only when asked for (four
    /// texts, each prepared once per connection), never as `($n IS NULL OR
    /// ...)`: Tidings prepares statements by name, PostgreSQL switches to a
    /// generic plan after five calls, and a generic plan cannot fold such a
    /// clause. It then estimated one row, and read, joined and sorted every
    /// change after the cursor before the limit: the whole history for a
    /// first sync. Without them the generic plan walks
    /// `changes_user_position_key` in order and stops at the limit.
    package func feed(userID: UUID, _ query: FeedQuery) throws -> FeedPage {
        let after = query.after ?? .start
        // $1 is the watch id, the statement's first parameter below.
        let watchFilter = query.watchID == nil ? "" : "AND c.watch_id = $1"
        let unreadFilter = query.unreadOnly ? "AND c.read_at IS NULL" : ""
        let rows = try database.query(
            """
            SELECT b.count, b.sequence, b.updated_at, b.last_position, b.trimmed_through,
                   (\(query.watchID)::uuid IS NULL
                    OR EXISTS (SELECT 1 FROM watches o WHERE o.id = $1 AND o.user_id = b.user_id)) AS watch_found,
                   c.id, c.watch_id, c.user_position, c.detected_at, c.previous_hash, c.new_hash, c.http_status,
                   c.content_length, c.diff, c.snapshot_truncated, c.read_at, c.name, c.url
            FROM badges b
            LEFT JOIN LATERAL (
                SELECT c.id, c.watch_id, c.user_position, c.detected_at, c.previous_hash, c.new_hash, c.http_status,
                       c.content_length, c.diff, c.snapshot_truncated, c.read_at, w.name, t.url
                FROM changes c
                JOIN watches w ON w.id = c.watch_id
                JOIN targets t ON t.id = w.target_id
                WHERE c.user_id = b.user_id AND c.user_position > \(after.value)
                  \(unsafeSQL: watchFilter) \(unsafeSQL: unreadFilter)
                ORDER BY c.user_position
                LIMIT \(query.limit + 1)
            ) c ON true
            WHERE b.user_id = \(userID)
            ORDER BY c.user_position
            """)
        guard let first = rows.first else {
            throw PostgresError(code: .decoding, message: "the user has no badge row")
        }
        if let watchID = query.watchID, !(try first.decode("watch_found", as: Bool.self)) {
            throw FeedError.unknownWatch(watchID)
        }
        let bounds = try BadgeStore.order(from: first)
        if let asked = query.after, !bounds.canResume(from: asked) {
            throw asked < bounds.trimmedThrough ? FeedError.positionTrimmed : FeedError.positionAhead
        }
        var changes: [FeedChange] = []
        for row in rows where try row.decode("id", as: UUID?.self) != nil {
            changes.append(
                FeedChange(
                    change: try Self.change(from: row),
                    position: FeedPosition(try row.decode("user_position")),
                    watchName: try row.decode("name"),
                    watchURL: try row.decode("url")
                ))
        }
        let next: FeedPosition
        if changes.count > query.limit {
            changes.removeLast(changes.count - query.limit)
            next = changes[changes.count - 1].position
        } else {
            next = bounds.newest
        }
        return FeedPage(changes: changes, next: next, badge: try BadgeStore.badge(from: first))
    }
}
