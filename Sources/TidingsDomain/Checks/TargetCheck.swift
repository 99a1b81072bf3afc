/// One target's check with something to record: the target row's update
/// and what each of its watches came to.
public struct TargetCheck: Sendable {
    public let target: TargetCheckRecord
    public let watches: [WatchCheckRecord]

    public init(target: TargetCheckRecord, watches: [WatchCheckRecord]) {
        self.target = target
        self.watches = watches
    }
}
