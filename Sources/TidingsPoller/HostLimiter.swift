import Dispatch
import Synchronization

/// Per-host politeness for every check of one poller: `HostGateState` per
/// host, with the requests that must wait queued in arrival order. Waiting
/// costs a suspended task, not a thread; a timer wakes hosts blocked by the
/// minimum gap or a Retry-After. States of idle hosts are dropped, so memory
/// follows the hosts in flight, not the hosts ever seen.
final class HostLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant

    private struct Host {
        var gate: HostGateState<Instant>
        var waiting: [CheckedContinuation<Bool, Never>] = []
        var head = 0
        var timerArmed = false

        var hasWaiting: Bool { head < waiting.count }
    }

    private struct State {
        var hosts: [String: Host] = [:]
        var isClosed = false
    }

    private let concurrency: Int
    private let minimumGap: Duration
    private let state = Mutex(State())
    private let timerQueue = DispatchQueue(label: "tidings.poller.host-limiter")

    init(concurrency: Int, minimumGap: Duration) {
        self.concurrency = concurrency
        self.minimumGap = minimumGap
    }

    /// Waits until a request to `host` may start. False when the limiter
    /// was closed (shutdown): the caller must not send the request.
    func acquire(host: String) async -> Bool {
        // A host with a free slot and nobody queued (the usual case) starts
        // at once, without suspending the task for a round trip through
        // the executor.
        if let immediate = tryAcquire(host: host) { return immediate }
        return await withCheckedContinuation { continuation in
            let (resumed, allowed) = state.withLock { state -> ([CheckedContinuation<Bool, Never>], Bool) in
                guard !state.isClosed else { return ([continuation], false) }
                state.hosts[host, default: Host(gate: HostGateState(concurrency: concurrency))].waiting.append(continuation)
                return (pump(host, in: &state), true)
            }
            for waiter in resumed { waiter.resume(returning: allowed) }
        }
    }

    /// The answer `acquire` can give without waiting, nil when it must
    /// queue.
    private func tryAcquire(host: String) -> Bool? {
        let now = Instant.now
        let gap = minimumGap
        return state.withLock { state -> Bool? in
            guard !state.isClosed else { return false }
            var entry = state.hosts[host] ?? Host(gate: HostGateState(concurrency: concurrency))
            guard !entry.hasWaiting, !entry.timerArmed, entry.gate.tryStart(now: now, earliestAfterLastStart: { $0 + gap }) == .start else {
                return nil
            }
            state.hosts[host] = entry
            return true
        }
    }

    /// Ends a request started by `acquire`; `holdFor` keeps the host closed
    /// that long (Retry-After).
    func release(host: String, holdFor: Duration? = nil) {
        let now = Instant.now
        let resumed = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.hosts[host]?.gate.finish(holdUntil: holdFor.map { now + $0 })
            return pump(host, in: &state)
        }
        for waiter in resumed { waiter.resume(returning: true) }
    }

    /// Fails every waiting and future `acquire`.
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.isClosed = true
            let waiters = state.hosts.values.flatMap { $0.waiting[$0.head...] }
            state.hosts.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }

    /// Starts as many waiting requests of `host` as its gate allows now and
    /// arms a timer when time is what blocks the rest.
    private func pump(_ name: String, in state: inout State) -> [CheckedContinuation<Bool, Never>] {
        guard var host = state.hosts[name] else { return [] }
        let now = Instant.now
        let gap = minimumGap
        var started: [CheckedContinuation<Bool, Never>] = []
        while host.hasWaiting {
            let decision = host.gate.tryStart(now: now) { $0 + gap }
            if decision == .start {
                started.append(host.waiting[host.head])
                host.head += 1
                continue
            }
            if case .waitUntil(let instant) = decision, !host.timerArmed {
                host.timerArmed = true
                let delay = now.duration(to: instant)
                timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(max(delay.nanoseconds, 0)))) { [weak self] in
                    self?.timerFired(name)
                }
            }
            break
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
        return started
    }

    private func timerFired(_ name: String) {
        let resumed = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.hosts[name]?.timerArmed = false
            return pump(name, in: &state)
        }
        for waiter in resumed { waiter.resume(returning: true) }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
