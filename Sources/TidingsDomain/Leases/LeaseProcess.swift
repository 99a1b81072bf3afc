import FoundationEssentials

/// The process lease owners run in, shared by its engines (the poller and
/// the two dispatchers). They stall and resume together, so after a pause
/// past `dead_after` (a suspended VM, SIGSTOP) none of them may take the
/// others for dead: the first to beat again would reap its siblings' rows,
/// free every lease and hold of its own process and race that process's
/// writers for the same rows. A heartbeat therefore reaps only other
/// processes' owners (migration 0044). A sibling whose own beat stays
/// stale pauses its work by itself (`LeaseLiveness`); should the process
/// die, another (or the next to start) frees its leases.
package struct LeaseProcess: Sendable, Hashable {
    package let id: String

    /// A new identity; an engine built with one of its own is alone in its
    /// process, as a test's stand-in for another replica is.
    package init() {
        id = UUID().canonicalString
    }
}
