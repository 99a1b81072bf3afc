import TidingsObservability

/// Deletes what outlived its retention, from an engine's own loop: a round
/// every `interval`, each a batch at a time (so that no one statement holds
/// its locks or writes its WAL for long) for at most `slice`, and while
/// rows remain the next round a `pause` later. A loop that also claims
/// work thus never stops claiming for longer than a slice, even when a
/// table holds a backlog of millions of old rows (after an upgrade, or a
/// shortened retention). Failures are logged and left for the next round.
struct RetentionPruner {
    static let batchSize = 1000
    /// The longest one round deletes.
    static let slice: Duration = .milliseconds(100)
    /// Between rounds while rows remain.
    static let pause: Duration = .seconds(1)

    /// Names the rows in the logs ("events", "pushes").
    private let what: String
    private let interval: Duration
    private var nextRound: ContinuousClock.Instant

    init(_ what: String, interval: Duration, firstRoundAfter: Duration = .seconds(10)) {
        self.what = what
        self.interval = interval
        self.nextRound = .now + firstRoundAfter
    }

    /// Runs a round if one is due at `now`; `deleteBatch` deletes up to
    /// the given number of rows and returns how many went.
    mutating func pruneIfDue(now: ContinuousClock.Instant = .now, logger: Logger, deleteBatch: (Int) throws -> Int) {
        guard now >= nextRound else { return }
        let deadline = now + Self.slice
        var pruned = 0
        var more = false
        do {
            while true {
                let batch = try deleteBatch(Self.batchSize)
                pruned += batch
                more = batch == Self.batchSize
                if !more || ContinuousClock.now >= deadline { break }
            }
        } catch {
            logger.warning("could not prune old \(what)", metadata: ["error": "\(error)"])
        }
        if pruned > 0 { logger.info("pruned old \(what)", metadata: [what: String(pruned)]) }
        nextRound = ContinuousClock.now + (more ? Self.pause : interval)
    }
}
