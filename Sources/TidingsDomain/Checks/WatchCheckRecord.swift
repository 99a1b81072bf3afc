import FoundationEssentials

/// What one check wrote, or writes, for one watch of the target.
package struct WatchCheckRecord: Sendable {
    package enum Kind: Sendable {
        /// A full body was extracted: the eventful write decides baseline,
        /// change or no-op, under the watch's lock.
        case content(ContentRecord)
        /// 304, version unchanged: nothing to compare.
        case quiet(CheckResult)
        case failed(String)
    }

    package struct ContentRecord: Sendable {
        package var hash: String
        package var snapshot: String
        package var snapshotTruncated: Bool
        package var httpStatus: Int
        package var contentLength: Int

        package init(hash: String, snapshot: String, snapshotTruncated: Bool, httpStatus: Int, contentLength: Int) {
            self.hash = hash
            self.snapshot = snapshot
            self.snapshotTruncated = snapshotTruncated
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

    /// Whether the content differs from the hash stored when the target was
    /// claimed (no baseline, no quiet re-baseline): the target's back-off
    /// restarts. A hint from the claim; the eventful write judges the
    /// change itself from the locked row.
    package var isChange: Bool {
        guard case .content(let content) = kind, let stored = watch.contentHash, !watch.quietRebaseline else { return false }
        return content.hash != stored
    }

    /// Whether writing this needs the eventful transaction (a hash to
    /// record, a failure count to raise, a state to leave) rather than the
    /// quiet batch: routing, judged from the claim; the eventful write
    /// decides what the content is.
    package var isEventful: Bool {
        switch kind {
        case .content(let content): content.hash != watch.contentHash || watch.state != .ok || watch.quietRebaseline
        case .quiet: watch.state != .ok
        case .failed: true
        }
    }
}
