public import Foundation

/// A change of one of the user's watches, as the sync feed lists it.
public struct FeedChange: Sendable, Hashable, Codable, Identifiable {
    /// The change's id: the key to store changes by (a resync may repeat one).
    public let id: String
    /// The watch that changed.
    public let watchID: String
    /// The watch's name.
    public let watchName: String
    /// The watch's URL.
    public let watchURL: String
    /// The change's position in the user's order.
    public let cursor: String
    /// When the change was detected.
    public let detectedAt: Date
    /// SHA-256 (hex) of the compared content before.
    public let previousHash: String
    /// SHA-256 (hex) of the compared content after.
    public let newHash: String
    /// The HTTP status of the answer that showed the change.
    public let httpStatus: Int?
    /// The size of that answer's body.
    public let contentLength: Int64?
    /// A unified diff of the compared text, size-capped.
    public let diff: String
    /// Whether the text was longer than the stored snapshot.
    public let snapshotTruncated: Bool
    /// Whether the change was read (on any device).
    public let read: Bool
    /// When it was read.
    public let readAt: Date?

    private enum CodingKeys: String, CodingKey {
        case id, cursor, diff, read
        case watchID = "watch_id"
        case watchName = "watch_name"
        case watchURL = "watch_url"
        case detectedAt = "detected_at"
        case previousHash = "previous_hash"
        case newHash = "new_hash"
        case httpStatus = "http_status"
        case contentLength = "content_length"
        case snapshotTruncated = "snapshot_truncated"
        case readAt = "read_at"
    }
}
