package import FoundationEssentials

/// A quiet result of one watch (304, version or content unchanged), as
/// `CheckStore.writeQuiet` writes it.
package struct QuietWatchResult: Sendable {
    package let watchID: UUID
    package let result: CheckResult
    package let checkedAt: Date
    /// As its target's `TargetCheckRecord.underHold`: written only with it.
    package let underHold: Bool

    package init(watchID: UUID, result: CheckResult, checkedAt: Date, underHold: Bool) {
        self.watchID = watchID
        self.result = result
        self.checkedAt = checkedAt
        self.underHold = underHold
    }
}
