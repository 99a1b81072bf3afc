import FoundationEssentials

/// A target this poller holds the lease of, with what a check needs: where
/// and how to fetch, the validators stored with the last full content, and
/// the watches that compare it.
public struct ClaimedTarget: Sendable {
    public let id: UUID
    public let url: String
    /// Lower-case name -> value; secrets, never logged.
    public let headers: [String: String]
    public let etag: String?
    public let lastModified: String?
    public let versionURL: String?
    public let versionPointer: String?
    public let lastVersion: String?
    /// Checks since the last unconditional full fetch.
    public let checksSinceFull: Int
    public let intervalSeconds: Int
    public let consecutiveFailures: Int
    /// Wire size of the last full response, for the bytes-saved estimate.
    public let lastBodySize: Int?
    public internal(set) var watches: [TargetWatch]
}
