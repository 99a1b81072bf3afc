public import Foundation

/// A URL the server checks for the user, and what it found.
public struct Watch: Sendable, Hashable, Codable, Identifiable {
    /// The watch's id.
    public let id: String
    /// The normalized URL.
    public let url: String
    /// The watch's name (the URL's host unless one was given).
    public let name: String
    /// Seconds between checks.
    public let intervalSeconds: Int
    /// The longest the checks back off to while nothing changes.
    public let maxIntervalSeconds: Int
    /// When the URL is checked next; nil while paused.
    public let nextCheckAt: Date?
    /// A JSON endpoint checked before the page, if any.
    public let versionURL: String?
    /// The JSON pointer into the version endpoint's answer.
    public let versionPointer: String?
    /// What part of the page is compared; nil for its readable text.
    public let extract: ExtractionRule?
    /// The names of the request headers sent (their values are never returned).
    public let headerNames: [String]
    /// Whether checks are paused.
    public let paused: Bool
    /// What a change pushes to the user's devices.
    public let notify: WatchNotify
    /// How the checks are going.
    public let state: WatchState
    /// When the URL was last checked.
    public let lastCheckedAt: Date?
    /// What the last check found.
    public let lastCheckResult: CheckResult?
    /// When the content last changed.
    public let lastChangedAt: Date?
    /// SHA-256 (hex) of the compared content at the last check.
    public let contentHash: String?
    /// Changes of this watch not yet read.
    public let unreadCount: Int
    /// Failed checks in a row.
    public let consecutiveFailures: Int
    /// Why the last check failed.
    public let lastError: String?
    /// When the watch was created.
    public let createdAt: Date
    /// When the watch last changed.
    public let updatedAt: Date

    private enum CodingKeys: String, CodingKey {
        case id, url, name, extract, paused, notify, state
        case intervalSeconds = "interval_seconds"
        case maxIntervalSeconds = "max_interval_seconds"
        case nextCheckAt = "next_check_at"
        case versionURL = "version_url"
        case versionPointer = "version_pointer"
        case headerNames = "header_names"
        case lastCheckedAt = "last_checked_at"
        case lastCheckResult = "last_check_result"
        case lastChangedAt = "last_changed_at"
        case contentHash = "content_hash"
        case unreadCount = "unread_count"
        case consecutiveFailures = "consecutive_failures"
        case lastError = "last_error"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
