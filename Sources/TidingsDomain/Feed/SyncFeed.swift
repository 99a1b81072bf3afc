package import FoundationEssentials

/// The sync feed's reader: answers an app that is already up to date from
/// the batched badge read, and every other request with the feed's one
/// statement.
///
/// An app that stored the last `next_cursor` and has no news asks with the
/// user's newest position: no change can follow it, so the answer is an
/// empty page, the same cursor and the badge, all from one badge row.
/// Badge reads share one query across concurrent requests
/// (`BatchingQueue`), which costs a fraction of the feed's statement
/// (docs/BENCHMARKS.md, "Sync feed").
package struct SyncFeed: Sendable {
    private let changes: ChangeStore
    private let badges: BadgeStore

    package init(changes: ChangeStore, badges: BadgeStore) {
        self.changes = changes
        self.badges = badges
    }

    package func page(userID: UUID, _ query: FeedQuery) throws -> FeedPage {
        // A watch filter must still answer 404 for a foreign watch, which
        // only the statement checks.
        if query.watchID == nil, let after = query.after,
            let current = try badges.badgeAndOrder(userID: userID),
            current.order.newest == after, current.order.canResume(from: after)
        {
            return FeedPage(changes: [], next: after, badge: current.badge)
        }
        return try changes.feed(userID: userID, query)
    }
}
