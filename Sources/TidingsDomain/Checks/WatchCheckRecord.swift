import FoundationEssentials

/// What one check wrote, or writes, for one watch of the target.
package struct WatchCheckRecord: Sendable {
    package enum Kind: Sendable {
        /// A full body was extracted: `record_changes` decides baseline/change/no-op.
        case content(ContentRecord)
        /// 304, version unchanged: nothing to compare.
        case quiet(CheckResult)
        case failed(String)
    }

    package struct ContentRecord: Sendable {
        package var hash: String
        package var snapshot: String
        package var snapshotTruncated: Bool
        /// Unified diff from the stored snapshot; filled in just before writing.
        package var diff: String
        package var httpStatus: Int
        package var contentLength: Int

        package init(hash: String, snapshot: String, snapshotTruncated: Bool, httpStatus: Int, contentLength: Int) {
            self.hash = hash
            self.snapshot = snapshot
            self.snapshotTruncated = snapshotTruncated
            self.diff = ""
            self.httpStatus = httpStatus
            self.contentLength = contentLength
        }
    }

    package let watch: TargetWatch
    package var kind: Kind

    package init(watch: TargetWatch, kind: Kind) {
        self.watch = watch
        self.kind = kind
    }

    /// Whether `record_changes` records a change for it: content that
    /// differs from a stored hash. A baseline (no stored hash) or a quiet
    /// re-baseline is no change; the SQL decides the same way.
    package var isChange: Bool {
        guard case .content(let content) = kind, let stored = watch.contentHash, !watch.quietRebaseline else { return false }
        return content.hash != stored
    }

    /// Whether writing this needs its own transaction (a hash to record, a
    /// failure count to raise, a state to leave) rather than the batch.
    package var isEventful: Bool {
        switch kind {
        case .content(let content): content.hash != watch.contentHash || watch.state != .ok || watch.quietRebaseline
        case .quiet: watch.state != .ok
        case .failed: true
        }
    }
}
