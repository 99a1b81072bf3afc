package import FoundationEssentials

/// One watch of a claimed target as the poller sees it.
package struct TargetWatch: Sendable {
    package let id: UUID
    package let userID: UUID
    package let extract: ExtractionRule?
    /// The stored `extract` JSON, compared when the result is written so a
    /// hash taken with an older rule is never stored for a newer one.
    package let extractJSON: String?
    /// Nil until the first successful check (the baseline).
    package let contentHash: String?
    package let state: WatchState
    package let paused: Bool
    /// The watch row's last result and failure count when claimed, so a
    /// quiet check that would write the same is not written at all.
    package internal(set) var lastCheckResult: CheckResult?
    package internal(set) var consecutiveFailures: Int
    package internal(set) var wasChecked: Bool
    /// The next content recorded is a quiet new baseline (migration 0023).
    package let quietRebaseline: Bool

    /// Whether the row already records a clean check with `result` (the
    /// target row carries the check's time).
    package func alreadyRecords(_ result: CheckResult) -> Bool {
        wasChecked && consecutiveFailures == 0 && lastCheckResult == result
    }
}
