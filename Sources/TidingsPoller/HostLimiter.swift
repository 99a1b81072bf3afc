import FoundationEssentials
import TidingsDomain
import TidingsSynchronization

/// Per-host politeness for every check of one poller: `HostGateState` per
/// site and port (`HTTPOrigin.siteAndPort`: every name under one
/// registrable domain is one site), with the requests that must wait
/// queued in a `FairQueue` by user, so one tenant's many targets on a
/// popular site take turns with everyone else's instead of filling its
/// queue. Waiting costs a suspended task, not a thread; the process's
/// `DeadlineTimer` wakes sites blocked by the minimum gap.
///
/// A Retry-After holds the host that sent it (`host:port`, `HostHolds`),
/// never its whole site, for at most `longestHold`
/// (`TIDINGS_MAX_RETRY_AFTER`). A host held for longer than
/// `longestHoldWait` answers at once with `.held`, so a host asking for an
/// hour holds no check slot (and no `POST /check` thread) meanwhile; a
/// shorter hold is waited out.
/// States of idle sites are dropped, so memory follows the sites in
/// flight, not the sites ever seen.
///
/// The configured concurrency and gap are the deployment's: with N live
/// pollers (`share(among:)`, from the heartbeat) each takes `1/N` of the
/// concurrency (at least 1) and N times the gap, so the replicas together
/// stay within them (decision 0029).
final class HostLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant
    private typealias Waiter = CheckedContinuation<Admission, Never>

    enum Admission: Equatable {
        /// The request may start; `release` must follow.
        case granted
        /// The limiter was closed (shutdown): no request may start.
        case closed
        /// The host asked, with Retry-After, for nothing before `until`.
        case held(until: Instant)
    }

    /// The longest a request waits for a Retry-After to pass; a longer
    /// hold fails the check at once.
    static let longestHoldWait: Duration = .seconds(5)

    private struct Site {
        var gate: HostGateState<Instant>
        /// Requests waiting for a slot, in turns by user.
        var waiting = FairQueue<UUID?, Waiter>()
        var timerArmed = false
    }

    private struct State {
        var sites: [String: Site] = [:]
        var holds = HostHolds<Instant>()
        var isClosed = false
        /// This process's share of the configured concurrency and gap.
        var concurrency: Int
        var minimumGap: Duration
    }

    private let configuredConcurrency: Int
    private let configuredMinimumGap: Duration
    /// The longest hold a Retry-After may set (`TIDINGS_MAX_RETRY_AFTER`).
    let longestHold: Duration
    private let state: AdaptiveMutex<State>

    init(concurrency: Int, minimumGap: Duration, longestHold: Duration = .seconds(3600)) {
        configuredConcurrency = concurrency
        configuredMinimumGap = minimumGap
        self.longestHold = longestHold
        state = AdaptiveMutex(State(concurrency: concurrency, minimumGap: minimumGap))
    }

    /// This process's concurrency per site now.
    var concurrency: Int {
        state.withLock { $0.concurrency }
    }

    /// Requests of `site` waiting for a slot: what a test awaits before it
    /// lets one go.
    func waitingCount(site: String) -> Int {
        state.withLock { $0.sites[site]?.waiting.count ?? 0 }
    }

    /// Shares the configured limits among `owners` live pollers; a larger
    /// share lets waiting requests start at once.
    func share(among owners: LiveOwners) {
        let concurrency = owners.share(of: configuredConcurrency)
        let gap = configuredMinimumGap * owners.count
        let resumed = state.withLock { state -> [(Waiter, Admission)] in
            state.concurrency = concurrency
            state.minimumGap = gap
            var resumed: [(Waiter, Admission)] = []
            for name in Array(state.sites.keys) {
                state.sites[name]?.gate.limit(to: concurrency)
                resumed += pump(name, in: &state)
            }
            return resumed
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
    }

    /// Waits until a request to `host` (`host:port`) on `site` may start,
    /// queued in `user`'s turn, or answers at once that it may not
    /// (closed, or the host held for long).
    func acquire(site: String, host: String, user: UUID?) async -> Admission {
        while true {
            // A site with a free slot and nobody queued (the usual case)
            // starts at once, without suspending the task for a round trip
            // through the executor.
            if let immediate = tryAcquire(site: site, host: host) {
                if case .held(let until) = immediate, ContinuousClock.now.duration(to: until) <= Self.longestHoldWait {
                    // A short hold is waited out, then the host is asked again.
                    await withCheckedContinuation { continuation in
                        DeadlineTimer.shared.schedule(at: until) { continuation.resume() }
                    }
                    continue
                }
                return immediate
            }
            return await withCheckedContinuation { continuation in
                let resumed = state.withLock { state -> [(Waiter, Admission)] in
                    guard !state.isClosed else { return [(continuation, .closed)] }
                    state.sites[site, default: Site(gate: HostGateState(concurrency: state.concurrency))]
                        .waiting.append(continuation, key: user)
                    return pump(site, in: &state)
                }
                for (waiter, admission) in resumed { waiter.resume(returning: admission) }
            }
        }
    }

    /// The answer `acquire` can give without waiting (closed, the host
    /// held, or a slot), nil when it must queue.
    private func tryAcquire(site name: String, host: String) -> Admission? {
        let now = Instant.now
        return state.withLock { state -> Admission? in
            guard !state.isClosed else { return .closed }
            if let until = state.holds.heldUntil(host, now: now) { return .held(until: until) }
            let gap = state.minimumGap
            var site = state.sites[name] ?? Site(gate: HostGateState(concurrency: state.concurrency))
            guard site.waiting.isEmpty, !site.timerArmed else { return nil }
            guard site.gate.tryStart(now: now, earliestAfterLastStart: { $0 + gap }) == .start else { return nil }
            state.sites[name] = site
            return .granted
        }
    }

    /// Ends a request started by `acquire`.
    func release(site name: String) {
        let resumed = state.withLock { state in
            state.sites[name]?.gate.finish()
            return pump(name, in: &state)
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
    }

    /// Closes `host` for `duration` (a Retry-After it sent), at most
    /// `longestHold`.
    func hold(host: String, for duration: Duration) {
        let now = Instant.now
        let longest = longestHold
        let until = now + duration.clamped(to: .zero...longest)
        state.withLock { state in
            state.holds.hold(host, until: until, now: now, atMost: { $0 + longest })
        }
    }

    /// Fails every waiting and future `acquire`.
    func close() {
        let waiters = state.withLock { state -> [Waiter] in
            state.isClosed = true
            var waiters: [Waiter] = []
            for name in Array(state.sites.keys) { waiters += state.sites[name]?.waiting.removeAll() ?? [] }
            state.sites.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: .closed) }
    }

    /// Starts as many waiting requests of site `name` as its gate allows
    /// now, one per user in turn, and arms a timer when the minimum gap is
    /// what blocks the rest.
    private func pump(_ name: String, in state: inout State) -> [(Waiter, Admission)] {
        guard var site = state.sites[name] else { return [] }
        let now = Instant.now
        let gap = state.minimumGap
        var answered: [(Waiter, Admission)] = []
        waiting: while !site.waiting.isEmpty {
            switch site.gate.tryStart(now: now, earliestAfterLastStart: { $0 + gap }) {
            case .start:
                if let waiter = site.waiting.popFirst() { answered.append((waiter, .granted)) }
            case .waitUntil(let instant):
                if !site.timerArmed {
                    site.timerArmed = true
                    DeadlineTimer.shared.schedule(at: instant) { [weak self] in self?.timerFired(name) }
                }
                break waiting
            case .waitForSlot:
                break waiting
            }
        }
        if site.waiting.isEmpty && !site.timerArmed && site.gate.isIdle(now: now, earliestAfterLastStart: { $0 + gap }) {
            state.sites[name] = nil
        } else {
            state.sites[name] = site
        }
        return answered
    }

    private func timerFired(_ name: String) {
        let resumed = state.withLock { state in
            state.sites[name]?.timerArmed = false
            return pump(name, in: &state)
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
    }
}
