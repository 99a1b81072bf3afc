import FoundationEssentials

/// One watch of a claimed target as the poller sees it.
public struct TargetWatch: Sendable {
    public let id: UUID
    public let userID: UUID
    public let extract: ExtractionRule?
    /// The stored `extract` JSON, compared when the result is written so a
    /// hash taken with an older rule is never stored for a newer one.
    public let extractJSON: String?
    /// Nil until the first successful check (the baseline).
    public let contentHash: String?
    public let state: WatchState
    public let paused: Bool
    /// The watch row's last result and failure count when claimed, so a
    /// quiet check that would write the same is not written at all.
    public let lastCheckResult: CheckResult?
    public let consecutiveFailures: Int
    public let wasChecked: Bool

    /// Whether the row already records a clean check with `result` (the
    /// target row carries the check's time).
    public func alreadyRecords(_ result: CheckResult) -> Bool {
        wasChecked && consecutiveFailures == 0 && lastCheckResult == result
    }
}
