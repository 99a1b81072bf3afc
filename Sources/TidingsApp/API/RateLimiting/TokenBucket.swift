/// A token bucket as a value-type state machine with the clock passed in
/// (like `HostGateState`), so its timing is testable with made-up instants.
/// It holds up to `policy.count` tokens, gets one back every
/// `policy.interval`, and each admitted request takes one.
///
/// The state is one instant: when the bucket will be full again. The
/// tokens at `now` follow from it (a bucket `d` away from full lacks
/// `d / interval` tokens), so taking a token moves it one interval later,
/// refilling needs no timer, and nothing is rounded.
struct TokenBucket<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    enum Decision: Equatable, Sendable {
        case admitted
        /// No whole token at `now`; the next one is there after `retryAfter`.
        case limited(retryAfter: Duration)
    }

    let policy: RatePolicy
    /// Nil: full (never used, or refilled since).
    private(set) var fullAt: Instant?

    init(policy: RatePolicy) {
        self.policy = policy
    }

    /// What `take` would answer at `now`, without taking anything.
    func decision(now: Instant) -> Decision {
        // Taking a token puts the bucket one interval further from full; it
        // may be at most a whole window (all tokens) from full.
        let afterTaking = untilFull(now) + policy.interval
        return afterTaking <= policy.window ? .admitted : .limited(retryAfter: afterTaking - policy.window)
    }

    /// Takes a token when there is one.
    mutating func take(now: Instant) -> Decision {
        let decision = decision(now: now)
        if decision == .admitted {
            fullAt = now.advanced(by: untilFull(now) + policy.interval)
        }
        return decision
    }

    /// Full at `now`: the same as a new bucket, so a store may forget it.
    func isFull(now: Instant) -> Bool {
        untilFull(now) == .zero
    }

    private func untilFull(_ now: Instant) -> Duration {
        guard let fullAt, now < fullAt else { return .zero }
        return now.duration(to: fullAt)
    }
}
