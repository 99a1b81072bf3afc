import FoundationEssentials

/// What one check wrote, or writes, for one watch of the target.
public struct WatchCheckRecord: Sendable {
    public enum Kind: Sendable {
        /// A full body was extracted: `record_changes` decides baseline/change/no-op.
        case content(ContentRecord)
        /// 304, version unchanged: nothing to compare.
        case quiet(CheckResult)
        case failed(String)
    }

    public struct ContentRecord: Sendable {
        public var hash: String
        public var snapshot: String
        public var snapshotTruncated: Bool
        /// Unified diff from the stored snapshot; filled in just before writing.
        public var diff: String
        public var httpStatus: Int
        public var contentLength: Int

        public init(hash: String, snapshot: String, snapshotTruncated: Bool, httpStatus: Int, contentLength: Int) {
            self.hash = hash
            self.snapshot = snapshot
            self.snapshotTruncated = snapshotTruncated
            self.diff = ""
            self.httpStatus = httpStatus
            self.contentLength = contentLength
        }
    }

    public let watch: TargetWatch
    public var kind: Kind

    public init(watch: TargetWatch, kind: Kind) {
        self.watch = watch
        self.kind = kind
    }

    /// Whether writing this needs its own transaction (a hash to record, a
    /// failure count to raise, a state to leave) rather than the batch.
    public var isEventful: Bool {
        switch kind {
        case .content(let content): content.hash != watch.contentHash || watch.state != .ok
        case .quiet: watch.state != .ok
        case .failed: true
        }
    }
}
