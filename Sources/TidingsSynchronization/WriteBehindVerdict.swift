/// What became of one batch a `WriteBehindQueue` handed to its write.
package enum WriteBehindVerdict: Sendable {
    case written
    /// The batch lost a race (a deadlock, a serialization failure, a row
    /// deleted meanwhile): it is written again at once, in a fresh
    /// snapshot, up to `raceRetries` times, then dropped.
    case lostRace(any Error)
    /// The store refuses it and would refuse it again: dropped at once.
    case refused(any Error)
    /// The store did not answer: the batch is kept and tried again after a
    /// growing pause; once the queue stops, it is dropped.
    case unreachable(any Error)
}
