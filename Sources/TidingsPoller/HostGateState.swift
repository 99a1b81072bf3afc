/// The politeness rules for one host as a value-type state machine, so the
/// timing is testable with made-up instants: at most `concurrency` requests
/// at once, `minimumGap` between request starts, and nothing before
/// `notBefore` (a Retry-After the host sent).
struct HostGateState<Instant: Comparable & Sendable>: Sendable {
    enum Decision: Equatable {
        case start
        /// Blocked by concurrency: a `finish` will open it.
        case waitForSlot
        /// Blocked by the minimum gap: ask again at this instant.
        case waitUntil(Instant)
        /// Closed by a Retry-After the host sent, until this instant.
        case heldUntil(Instant)
    }

    private(set) var concurrency: Int
    private(set) var active = 0
    private(set) var lastStart: Instant?
    private(set) var notBefore: Instant?

    init(concurrency: Int) {
        self.concurrency = max(concurrency, 1)
    }

    /// Whether a request may start at `now`; `.start` counts it as started.
    mutating func tryStart(now: Instant, earliestAfterLastStart: (Instant) -> Instant) -> Decision {
        if let notBefore, now < notBefore { return .heldUntil(notBefore) }
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

    /// Nothing starts before `instant` (a later hold already set stays).
    mutating func hold(until instant: Instant) {
        if notBefore.map({ instant > $0 }) ?? true {
            notBefore = instant
        }
    }

    /// Nothing in flight and no rule that outlives `now`: the state can go.
    func isIdle(now: Instant, earliestAfterLastStart: (Instant) -> Instant) -> Bool {
        active == 0 && notBefore.map { now >= $0 } ?? true && lastStart.map { now >= earliestAfterLastStart($0) } ?? true
    }
}
