package import FoundationEssentials

/// One detected change of a watch's content: what the history and the
/// `watch.changed` event show. The snapshot itself stays in the database.
package struct Change: Sendable, Equatable {
    package let id: UUID
    package let watchID: UUID
    package let detectedAt: Date
    package let previousHash: String
    package let newHash: String
    package let httpStatus: Int?
    package let contentLength: Int?
    /// A short unified diff from the previous snapshot.
    package let diff: String
    package let snapshotTruncated: Bool
    /// When the user read it; nil while it counts as unread.
    package let readAt: Date?
}
