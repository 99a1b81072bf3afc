import FoundationEssentials

/// A target this poller holds the lease of, with what a check needs: where
/// and how to fetch, the validators stored with the last full content, and
/// the watches that compare it.
package struct ClaimedTarget: Sendable {
    package let id: UUID
    package let url: String
    /// Lower-case name -> value as stored: sealed when `headersSealed`
    /// (`StoredSecrets.openHeaders` opens them where the request is built);
    /// secrets either way, never logged.
    package let headers: [String: String]
    package let headersSealed: Bool
    package let etag: String?
    package let lastModified: String?
    package let versionURL: String?
    package let versionPointer: String?
    package let lastVersion: String?
    /// Checks since the last unconditional full fetch.
    package let checksSinceFull: Int
    package let intervalSeconds: Int
    package let consecutiveFailures: Int
    /// Wire size of the last full response, for the bytes-saved estimate.
    package let lastBodySize: Int?
    package internal(set) var watches: [TargetWatch]
}
