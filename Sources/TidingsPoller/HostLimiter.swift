import TidingsDomain
import TidingsSynchronization

/// Per-host politeness for every check of one poller: `HostGateState` per
/// site and port (`HTTPOrigin.siteAndPort`: every name under one
/// registrable domain is one site), with the requests that must wait
/// queued in arrival order. Waiting costs a suspended task, not a thread;
/// the process's `DeadlineTimer` wakes hosts blocked by the minimum gap or
/// a short Retry-After. A host closed for longer than `longestHoldWait`
/// answers at once with `.held`, so a host asking for hours holds no check
/// slot (and no `POST /check` thread) meanwhile.
/// States of idle hosts are dropped, so memory follows the hosts in flight,
/// not the hosts ever seen.
///
/// The configured concurrency and gap are the deployment's: with N live
/// pollers (`share(among:)`, from the heartbeat) each takes `1/N` of the
/// concurrency (at least 1) and N times the gap, so the replicas together
/// stay within them (decision 0029).
final class HostLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant

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

    private struct Host {
        var gate: HostGateState<Instant>
        var waiting: [CheckedContinuation<Admission, Never>] = []
        var head = 0
        var timerArmed = false

        var hasWaiting: Bool { head < waiting.count }
    }

    private struct State {
        var hosts: [String: Host] = [:]
        var isClosed = false
        /// This process's share of the configured concurrency and gap.
        var concurrency: Int
        var minimumGap: Duration
    }

    private let configuredConcurrency: Int
    private let configuredMinimumGap: Duration
    private let state: AdaptiveMutex<State>

    init(concurrency: Int, minimumGap: Duration) {
        configuredConcurrency = concurrency
        configuredMinimumGap = minimumGap
        state = AdaptiveMutex(State(concurrency: concurrency, minimumGap: minimumGap))
    }

    /// This process's concurrency per host now.
    var concurrency: Int {
        state.withLock { $0.concurrency }
    }

    /// Shares the configured limits among `owners` live pollers; a larger
    /// share lets waiting requests start at once.
    func share(among owners: LiveOwners) {
        let concurrency = owners.share(of: configuredConcurrency)
        let gap = configuredMinimumGap * owners.count
        let resumed = state.withLock { state -> [(CheckedContinuation<Admission, Never>, Admission)] in
            state.concurrency = concurrency
            state.minimumGap = gap
            var resumed: [(CheckedContinuation<Admission, Never>, Admission)] = []
            for name in Array(state.hosts.keys) {
                state.hosts[name]?.gate.limit(to: concurrency)
                resumed += pump(name, in: &state)
            }
            return resumed
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
    }

    /// Waits until a request to `site` may start, or answers at once that
    /// it may not (closed, or held for long).
    func acquire(site host: String) async -> Admission {
        // A host with a free slot and nobody queued (the usual case) starts
        // at once, without suspending the task for a round trip through
        // the executor.
        if let immediate = tryAcquire(host: host) { return immediate }
        return await withCheckedContinuation { continuation in
            let resumed = state.withLock { state -> [(CheckedContinuation<Admission, Never>, Admission)] in
                guard !state.isClosed else { return [(continuation, .closed)] }
                state.hosts[host, default: Host(gate: HostGateState(concurrency: state.concurrency))].waiting.append(continuation)
                return pump(host, in: &state)
            }
            for (waiter, admission) in resumed { waiter.resume(returning: admission) }
        }
    }

    /// The answer `acquire` can give without waiting, nil when it must
    /// queue.
    private func tryAcquire(host: String) -> Admission? {
        let now = Instant.now
        return state.withLock { state -> Admission? in
            guard !state.isClosed else { return .closed }
            let gap = state.minimumGap
            var entry = state.hosts[host] ?? Host(gate: HostGateState(concurrency: state.concurrency))
            guard !entry.hasWaiting, !entry.timerArmed else { return nil }
            switch entry.gate.tryStart(now: now, earliestAfterLastStart: { $0 + gap }) {
            case .start:
                state.hosts[host] = entry
                return .granted
            case .heldUntil(let instant) where now.duration(to: instant) > Self.longestHoldWait:
                return .held(until: instant)
            default:
                return nil
            }
        }
    }

    /// Ends a request started by `acquire`.
    func release(site host: String) {
        let resumed = state.withLock { state in
            state.hosts[host]?.gate.finish()
            return pump(host, in: &state)
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
    }

    /// Closes `site` for `duration` (a Retry-After one of its hosts sent).
    func hold(site host: String, for duration: Duration) {
        let until = Instant.now + duration.clamped(to: .zero...Duration.longestRepresentable)
        let resumed = state.withLock { state in
            var entry = state.hosts[host] ?? Host(gate: HostGateState(concurrency: state.concurrency))
            entry.gate.hold(until: until)
            state.hosts[host] = entry
            return pump(host, in: &state)
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
    }

    /// Fails every waiting and future `acquire`.
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Admission, Never>] in
            state.isClosed = true
            let waiters = state.hosts.values.flatMap { $0.waiting[$0.head...] }
            state.hosts.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: .closed) }
    }

    /// Answers as many waiting requests of `host` as its gate allows now
    /// (started, or held for long) and arms a timer when a short wait is
    /// what blocks the rest.
    private func pump(_ name: String, in state: inout State) -> [(CheckedContinuation<Admission, Never>, Admission)] {
        guard var host = state.hosts[name] else { return [] }
        let now = Instant.now
        let gap = state.minimumGap
        var answered: [(CheckedContinuation<Admission, Never>, Admission)] = []
        waiting: while host.hasWaiting {
            switch host.gate.tryStart(now: now, earliestAfterLastStart: { $0 + gap }) {
            case .start:
                answered.append((host.waiting[host.head], .granted))
                host.head += 1
            case .heldUntil(let instant) where now.duration(to: instant) > Self.longestHoldWait:
                answered.append((host.waiting[host.head], .held(until: instant)))
                host.head += 1
            case .heldUntil(let instant), .waitUntil(let instant):
                if !host.timerArmed {
                    host.timerArmed = true
                    DeadlineTimer.shared.schedule(at: instant) { [weak self] in self?.timerFired(name) }
                }
                break waiting
            case .waitForSlot:
                break waiting
            }
        }
        if host.head > 64 && host.head * 2 > host.waiting.count {
            host.waiting.removeFirst(host.head)
            host.head = 0
        }
        if !host.hasWaiting && !host.timerArmed && host.gate.isIdle(now: now, earliestAfterLastStart: { $0 + gap }) {
            state.hosts[name] = nil
        } else {
            state.hosts[name] = host
        }
        return answered
    }

    private func timerFired(_ name: String) {
        let resumed = state.withLock { state in
            state.hosts[name]?.timerArmed = false
            return pump(name, in: &state)
        }
        for (waiter, admission) in resumed { waiter.resume(returning: admission) }
    }
}
