import FoundationEssentials

/// One detected change of a watch's content: what the history and the
/// `watch.changed` event show. The snapshot itself stays in the database.
public struct Change: Sendable, Equatable {
    public let id: UUID
    public let watchID: UUID
    public let detectedAt: Date
    public let previousHash: String
    public let newHash: String
    public let httpStatus: Int?
    public let contentLength: Int?
    /// A short unified diff from the previous snapshot.
    public let diff: String
    public let snapshotTruncated: Bool
    /// When the user read it; nil while it counts as unread.
    public let readAt: Date?
}
