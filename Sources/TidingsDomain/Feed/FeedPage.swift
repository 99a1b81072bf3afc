/// One answer of the sync feed: up to the limit of changes after the
/// client's position, where to ask next, and the badge as it stood in the
/// same snapshot.
package struct FeedPage: Sendable {
    package let changes: [FeedChange]
    /// The last change's position while more may follow; once the feed is
    /// read to its end, the user's newest position, so a client that stores
    /// it skips events it has no use for.
    package let next: FeedPosition
    package let badge: Badge
}
