/// When `/readyz` asks the database again, as a value with no I/O (the
/// clock comes in as arguments, like `TokenBucket`).
///
/// Probes, and floods of them, cost the database one query per
/// `refreshAfter` at most: a result younger than that is the answer. Once it
/// is older, one caller refreshes it while the others keep answering from it
/// until it is `maxAge` old; past that, with the refresh still running,
/// they answer that the database is slow (it did not answer within the age
/// a readiness answer may have).
struct ReadinessCache<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What the database said: the applied schema version, or nothing.
    enum Reading: Equatable, Sendable {
        case applied(Int)
        case unreachable
    }

    enum Step: Equatable, Sendable {
        case answer(Reading)
        /// The caller reads the database and hands the result to `refreshed`.
        case refresh
        /// Another caller's refresh is late and the last reading too old.
        case slow
    }

    let refreshAfter: Duration
    let maxAge: Duration
    private var last: (reading: Reading, readAt: Instant)?
    private var refreshing = false

    init(refreshAfter: Duration = .milliseconds(250), maxAge: Duration = .seconds(1)) {
        precondition(refreshAfter <= maxAge)
        self.refreshAfter = refreshAfter
        self.maxAge = maxAge
    }

    mutating func next(now: Instant) -> Step {
        let age = last.map { $0.readAt.duration(to: now) }
        if let last, let age, age < refreshAfter {
            return .answer(last.reading)
        }
        guard refreshing else {
            refreshing = true
            return .refresh
        }
        if let last, let age, age <= maxAge {
            return .answer(last.reading)
        }
        return .slow
    }

    /// The refresh's result; `readAt` is when its query started, so an
    /// answer's age counts the query's time too.
    mutating func refreshed(_ reading: Reading, readAt: Instant) {
        last = (reading, readAt)
        refreshing = false
    }
}
