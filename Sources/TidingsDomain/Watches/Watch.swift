import FoundationEssentials

/// A user's watch as it can be shown: its settings without header values,
/// and the state the poller keeps.
public struct Watch: Sendable {
    public let id: UUID
    public let userID: UUID
    public let targetID: UUID
    /// Normalized, as stored.
    public let url: String
    public let name: String
    public let intervalSeconds: Int
    public let versionURL: String?
    public let versionPointer: String?
    public let extract: ExtractionRule?
    /// Lower-case names of the request headers; their values are write-only.
    public let headerNames: [String]
    public let paused: Bool
    public let state: WatchState
    public let lastCheckedAt: Date?
    public let lastCheckResult: CheckResult?
    public let lastChangedAt: Date?
    /// SHA-256 (hex) of the extracted content at the last check.
    public let contentHash: String?
    public let unreadCount: Int
    public let consecutiveFailures: Int
    public let lastError: String?
    public let createdAt: Date
    public let updatedAt: Date
    /// What fetching the watch's target has cost, shared by every watch of
    /// the target.
    public let fetchStatistics: FetchStatistics
}
