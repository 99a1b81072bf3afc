/// One target's check with something to record: the target row's update
/// and what each of its watches came to.
package struct TargetCheck: Sendable {
    package let target: TargetCheckRecord
    package let watches: [WatchCheckRecord]

    package init(target: TargetCheckRecord, watches: [WatchCheckRecord]) {
        self.target = target
        self.watches = watches
    }
}
