/// The politeness rules for one site as a value-type state machine, so the
/// timing is testable with made-up instants: at most `concurrency` requests
/// at once and `minimumGap` between request starts. A Retry-After holds
/// only the host that sent it (`HostHolds`), not the site.
struct HostGateState<Instant: Comparable & Sendable>: Sendable {
    enum Decision: Equatable {
        case start
        /// Blocked by concurrency: a `finish` will open it.
        case waitForSlot
        /// Blocked by the minimum gap: ask again at this instant.
        case waitUntil(Instant)
    }

    private(set) var concurrency: Int
    private(set) var active = 0
    private(set) var lastStart: Instant?

    init(concurrency: Int) {
        self.concurrency = max(concurrency, 1)
    }

    /// Whether a request may start at `now`; `.start` counts it as started.
    mutating func tryStart(now: Instant, earliestAfterLastStart: (Instant) -> Instant) -> Decision {
        guard active < concurrency else { return .waitForSlot }
        if let lastStart {
            let earliest = earliestAfterLastStart(lastStart)
            if now < earliest { return .waitUntil(earliest) }
        }
        active += 1
        lastStart = now
        return .start
    }

    /// A new cap (this replica's share changed); requests already above it
    /// finish, and none starts until `active` is below it.
    mutating func limit(to concurrency: Int) {
        self.concurrency = max(concurrency, 1)
    }

    mutating func finish() {
        active = max(active - 1, 0)
    }

    /// Nothing in flight and no rule that outlives `now`: the state can go.
    func isIdle(now: Instant, earliestAfterLastStart: (Instant) -> Instant) -> Bool {
        active == 0 && lastStart.map { now >= earliestAfterLastStart($0) } ?? true
    }
}
