package import FoundationEssentials

/// A user's watch as it can be shown: its settings without header values,
/// and the state the poller keeps.
package struct Watch: Sendable {
    package let id: UUID
    package let userID: UUID
    package let targetID: UUID
    /// Normalized, as stored.
    package let url: String
    package let name: String
    package let intervalSeconds: Int
    package let maxIntervalSeconds: Int
    /// The target's next check (adaptive, decision 0028); nil while the
    /// watch is paused, or every watch of the target is.
    package let nextCheckAt: Date?
    package let versionURL: String?
    package let versionPointer: String?
    package let extract: ExtractionRule?
    /// Lower-case names of the request headers; their values are write-only.
    package let headerNames: [String]
    /// Lower-case names of the version endpoint's own request headers.
    package let versionHeaderNames: [String]
    package let paused: Bool
    package let notify: WatchNotify
    package let state: WatchState
    package let lastCheckedAt: Date?
    package let lastCheckResult: CheckResult?
    package let lastChangedAt: Date?
    /// SHA-256 (hex) of the extracted content at the last check.
    package let contentHash: String?
    package let unreadCount: Int
    package let consecutiveFailures: Int
    package let lastError: String?
    package let createdAt: Date
    package let updatedAt: Date
    /// What fetching the watch's target has cost, shared by every watch of
    /// the target.
    package let fetchStatistics: FetchStatistics
}
