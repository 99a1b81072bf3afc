/// What one ``SyncEngine/sync()`` brought.
public struct SyncResult: Sendable, Hashable {
    /// The changes since the last sync, oldest first.
    public let changes: [FeedChange]
    /// The badge as of this sync.
    public let badge: Badge
    /// The saved cursor could not be resumed (too old, or from another
    /// server), so `changes` is every change the server keeps: replace
    /// what the app stored rather than adding to it, keyed by change id.
    public let resynced: Bool
    /// The cursor saved for the next sync.
    public let cursor: String

    /// Creates a result, as the engine reports one.
    public init(changes: [FeedChange], badge: Badge, resynced: Bool, cursor: String) {
        self.changes = changes
        self.badge = badge
        self.resynced = resynced
        self.cursor = cursor
    }
}
