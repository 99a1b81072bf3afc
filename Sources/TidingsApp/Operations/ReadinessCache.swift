/// When `/readyz` asks the database again, as a value with no I/O (the
/// clock comes in as arguments, like `TokenBucket`).
///
/// Probes, and floods of them, cost the database one query per
/// `refreshAfter` at most: a reading younger than that is the answer. Once
/// it is older, one caller refreshes it while the others keep answering
/// from it until it is `maxAge` old; past that, with the refresh still
/// running, they wait for the refresh rather than answer from an older
/// reading or query as well.
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
        /// Another caller's refresh is late and the last reading too old:
        /// wait for that refresh, then answer `lastReading`.
        case awaitRefresh
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
        return .awaitRefresh
    }

    var lastReading: Reading? {
        last?.reading
    }

    /// The refresh's result; `readAt` is when the database answered.
    mutating func refreshed(_ reading: Reading, readAt: Instant) {
        last = (reading, readAt)
        refreshing = false
    }
}
