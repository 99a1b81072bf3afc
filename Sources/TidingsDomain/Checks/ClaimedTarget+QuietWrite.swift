package import FoundationEssentials

extension ClaimedTarget {
    /// The target as its row reads after `CheckStore.writeQuiet` wrote
    /// `record` and each watch in `results` its quiet result: what the
    /// holder keeps to check it next without reading the row again
    /// (decision 0062). Mirrors the SET of `CheckStore.writeTargets` and
    /// of the quiet watch write; `TargetHoldTests` holds the two together.
    package func afterQuietWrite(_ record: TargetCheckRecord, results: [UUID: CheckResult]) -> ClaimedTarget {
        var target = self
        target.consecutiveFailures = record.error == nil ? 0 : consecutiveFailures + 1
        if case .replace(let values) = record.validators {
            (target.etag, target.lastModified) = (values.etag, values.lastModified)
        }
        if case .replace(let value) = record.version { target.lastVersion = value }
        if case .replace(let value) = record.bodySHA256 { target.bodySHA256 = value }
        target.checksSinceFull = record.wasUnconditional ? 0 : checksSinceFull + 1
        if record.contentChanged { target.contentChangedAt = record.checkedAt }
        if let size = record.fullBodySize { target.lastBodySize = size }
        for index in target.watches.indices where target.watches[index].state == .ok {
            guard let result = results[target.watches[index].id] else { continue }
            target.watches[index].lastCheckResult = result
            target.watches[index].consecutiveFailures = 0
            target.watches[index].wasChecked = true
        }
        target.isHeld = true
        return target
    }
}
