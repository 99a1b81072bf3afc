package import FoundationEssentials

/// What a client asks of the sync feed.
package struct FeedQuery: Sendable {
    /// Changes after this position; nil means from the oldest one kept.
    package var after: FeedPosition?
    package var limit: Int
    /// Only changes not yet read.
    package var unreadOnly: Bool
    /// Only the changes of this watch.
    package var watchID: UUID?

    package init(after: FeedPosition? = nil, limit: Int = PageRequest.defaultLimit, unreadOnly: Bool = false, watchID: UUID? = nil) {
        self.after = after
        self.limit = min(max(limit, 1), PageRequest.maximumLimit)
        self.unreadOnly = unreadOnly
        self.watchID = watchID
    }
}
