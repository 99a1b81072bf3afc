import FoundationEssentials
import TidingsDomain

/// A change in the watch's history, as `GET /v1/watches/{id}/changes` lists it.
struct ChangeRepresentation: Encodable, Sendable {
    let change: Change

    init(_ change: Change) {
        self.change = change
    }

    enum CodingKeys: String, CodingKey {
        case id
        case watchID = "watch_id"
        case detectedAt = "detected_at"
        case previousHash = "previous_hash"
        case newHash = "new_hash"
        case httpStatus = "http_status"
        case contentLength = "content_length"
        case diff
        case snapshotTruncated = "snapshot_truncated"
        case read
        case readAt = "read_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(change.id.canonicalString, forKey: .id)
        try container.encode(change.watchID.canonicalString, forKey: .watchID)
        try container.encode(change.detectedAt, forKey: .detectedAt)
        try container.encode(change.previousHash, forKey: .previousHash)
        try container.encode(change.newHash, forKey: .newHash)
        // Explicit nulls: every documented field is always present.
        try container.encode(change.httpStatus, forKey: .httpStatus)
        try container.encode(change.contentLength, forKey: .contentLength)
        try container.encode(change.diff, forKey: .diff)
        try container.encode(change.snapshotTruncated, forKey: .snapshotTruncated)
        try container.encode(change.readAt != nil, forKey: .read)
        try container.encode(change.readAt, forKey: .readAt)
    }
}
