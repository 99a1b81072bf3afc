/// How many processes (replicas) hold leases of one kind right now, as the
/// heartbeat last counted them. Per-host politeness caps are divided by
/// it, so the replicas together stay near the configured cap instead of
/// multiplying it (decision 0029).
package struct LiveOwners: Sendable, Equatable {
    /// At least 1: the counting process itself.
    package let count: Int

    package init(count: Int) {
        self.count = max(count, 1)
    }

    /// This process's part of a cap meant for the whole deployment:
    /// `total / count`, rounded down, but at least 1 so that every replica
    /// can still reach every host. With more replicas than `total`, the
    /// deployment sends up to `count` at once, never more.
    package func share(of total: Int) -> Int {
        max(total / count, 1)
    }
}
