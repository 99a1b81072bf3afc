/// What of a user's order can be read: positions after `trimmedThrough`
/// up to `newest`. A client position outside them must resync.
package struct UserOrderBounds: Sendable, Equatable {
    package let newest: FeedPosition
    package let trimmedThrough: FeedPosition

    package init(newest: FeedPosition, trimmedThrough: FeedPosition) {
        self.newest = newest
        self.trimmedThrough = trimmedThrough
    }

    /// Whether reading on from `position` misses nothing and repeats
    /// nothing of what the client saw.
    package func canResume(from position: FeedPosition) -> Bool {
        position >= trimmedThrough && position <= newest
    }
}
