import Synchronization

/// Bytes of extracted content (the snapshots of `.content` results) handed
/// to the `OutcomeWriter` and not yet written. While every check records
/// content (a first round taking baselines) the writer is the slower side
/// and its backlog fills; each waiting result then holds a snapshot of up
/// to `snapshotByteLimit`, so a limit by count alone let 4,000 of them
/// hold 110 MB. The scheduler claims no more while this is over
/// `PollerConfiguration.writeBacklogBytes`.
final class ContentBacklog: Sendable {
    private let held = Atomic<Int>(0)

    var bytes: Int {
        held.load(ordering: .relaxed)
    }

    /// An outcome goes to the writer (queued or written at once).
    func add(_ outcome: CheckOutcome) {
        held.add(outcome.contentBytes, ordering: .relaxed)
    }

    /// Outcomes the writer is done with, written or not.
    func remove(_ outcomes: [CheckOutcome]) {
        held.subtract(outcomes.reduce(0) { $0 + $1.contentBytes }, ordering: .relaxed)
    }
}
