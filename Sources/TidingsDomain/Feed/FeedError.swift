package import FoundationEssentials

/// Why the sync feed cannot answer from a position.
package enum FeedError: Error, Sendable, Equatable {
    /// Retention removed rows after this position: the client must resync
    /// from the start.
    case positionTrimmed
    /// The position lies beyond the newest this server has drawn for the
    /// user (a cursor from another deployment, or from before a restore).
    case positionAhead
    /// The user has no such watch.
    case unknownWatch(UUID)
}
