package import FoundationEssentials

/// A target this poller leases or holds, with what a check needs: where
/// and how to fetch, the validators stored with the last full content, and
/// the watches that compare it.
package struct ClaimedTarget: Sendable {
    package let id: UUID
    package let url: String
    /// `targets.headers` and `targets.version_headers` as stored (JSON
    /// objects, values sealed when `headersSealed`): secrets, opened by
    /// `requestHeaders` only where a request is built, never logged.
    let storedHeaders: String
    let storedVersionHeaders: String
    /// Whether both header columns hold sealed values.
    package let headersSealed: Bool
    package internal(set) var etag: String?
    package internal(set) var lastModified: String?
    package let versionURL: String?
    package let versionPointer: String?
    package internal(set) var lastVersion: String?
    /// Checks since the last unconditional full fetch.
    package internal(set) var checksSinceFull: Int
    package let intervalSeconds: Int
    /// The longest delay the watches allow while the content stays the
    /// same (migration 0024); at least `intervalSeconds`.
    package let maxIntervalSeconds: Int
    /// When a check last saw the content change (or the target was created).
    package internal(set) var contentChangedAt: Date
    package internal(set) var consecutiveFailures: Int
    /// Wire size of the last full response, for the bytes-saved estimate.
    package internal(set) var lastBodySize: Int?
    /// SHA-256 (hex) of the last full body every watch extracted from
    /// (decision 0027), nil when there is none.
    package internal(set) var bodySHA256: String?
    package internal(set) var watches: [TargetWatch]
    /// Read from this poller's hold (`CheckStore.readHeld`, decisions 0057
    /// and 0058), not leased by a claim: no row was written.
    package internal(set) var isHeld = false
}

extension ClaimedTarget {
    /// The plain headers of one column, sorted by name. Throws when the
    /// column cannot be read or opened: the check then fails and says so
    /// rather than go out without them (or stop the claim of other targets).
    package func requestHeaders(
        _ column: StoredSecrets.HeaderColumn, secrets: StoredSecrets
    ) throws -> [(name: String, value: String)] {
        let text = column == .headers ? storedHeaders : storedVersionHeaders
        // Most targets send no headers: they skip the decoder.
        guard text != "{}" else { return [] }
        let stored: [String: String]
        do {
            stored = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        } catch {
            throw StoredSecretsError.unreadableHeaders(column)
        }
        return try secrets.openHeaders(stored, sealed: headersSealed, in: column)
            .sorted { $0.key < $1.key }
            .map { (name: $0.key, value: $0.value) }
    }
}
