import Foundation
import Synchronization
import TidingsDomain
import TidingsObservability

/// Writes check results. Quiet ones (the common case: 304, unchanged)
/// collect for up to `writeBatchDelay` and go out as one batch; a target
/// with anything to record gets its own transaction. Diffs are computed
/// here, on the writer's thread, never on the HTTP driver thread.
final class OutcomeWriter: Sendable {
    private struct Queue {
        var pending: [(CheckOutcome, @Sendable () -> Void)] = []
        var isStopped = false
    }

    private let store: CheckStore
    private let owner: String
    private let configuration: PollerConfiguration
    private let logger: Logger
    private let metrics: PollerMetrics
    private let queue = Mutex(Queue())
    private let wakeup = NSCondition()
    private let finished = DispatchSemaphore(value: 0)

    init(store: CheckStore, owner: String, configuration: PollerConfiguration, logger: Logger, metrics: PollerMetrics) {
        self.store = store
        self.owner = owner
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "tidings-poller-writer"
        thread.start()
    }

    /// Queues an outcome; `done` runs once it is written (or dropped).
    func submit(_ outcome: CheckOutcome, done: @escaping @Sendable () -> Void) {
        let accepted = queue.withLock { queue in
            guard !queue.isStopped else { return false }
            queue.pending.append((outcome, done))
            return true
        }
        guard accepted else { return done() }
        wakeup.lock()
        wakeup.signal()
        wakeup.unlock()
    }

    /// Writes what is queued, then stops the thread.
    func stop() {
        queue.withLock { $0.isStopped = true }
        wakeup.lock()
        wakeup.signal()
        wakeup.unlock()
        finished.wait()
    }

    private func run() {
        while true {
            let (batch, stopped) = nextBatch()
            if !batch.isEmpty {
                write(batch.map(\.0))
                for (_, done) in batch { done() }
            }
            if stopped && batch.isEmpty { break }
        }
        finished.signal()
    }

    /// Waits for work, then a little longer so quiet results batch up.
    private func nextBatch() -> ([(CheckOutcome, @Sendable () -> Void)], Bool) {
        var waitedForBatch = false
        while true {
            let (count, stopped) = queue.withLock { ($0.pending.count, $0.isStopped) }
            if stopped || (count > 0 && waitedForBatch) || count >= configuration.claimBatchSize {
                return queue.withLock { queue in
                    let batch = queue.pending
                    queue.pending.removeAll(keepingCapacity: true)
                    return (batch, queue.isStopped)
                }
            }
            wakeup.lock()
            if count > 0 {
                _ = wakeup.wait(until: Date(timeIntervalSinceNow: CheckSchedule.seconds(configuration.writeBatchDelay)))
                waitedForBatch = true
            } else {
                _ = wakeup.wait(until: Date(timeIntervalSinceNow: 0.5))
            }
            wakeup.unlock()
        }
    }

    /// Writes outcomes: eventful targets one transaction each, the quiet
    /// rest in one batch. Returns what each watch's check came to.
    @discardableResult
    func write(_ outcomes: [CheckOutcome]) -> [UUID: WatchCheckResult] {
        var results: [UUID: WatchCheckResult] = [:]
        var quietTargets: [TargetCheckRecord] = []
        var quietWatches: [(watchID: UUID, result: CheckResult, checkedAt: Date)] = []
        let live = outcomes.filter { !$0.abandoned }
        for outcome in live { metrics.record(outcome) }
        for outcome in live {
            guard outcome.isEventful else {
                quietTargets.append(outcome.record)
                for watch in outcome.watches {
                    let result = Self.quietResult(watch)
                    quietWatches.append((watch.watch.id, result, outcome.record.checkedAt))
                    results[watch.watch.id] = WatchCheckResult(watchID: watch.watch.id, result: result, changeID: nil, state: .ok, error: nil)
                }
                continue
            }
            do {
                let written = try store.writeEventful(owner: owner, target: outcome.record, watches: try withDiffs(outcome.watches))
                for result in written {
                    results[result.watchID] = result
                    if result.changeID != nil { metrics.changes.increment() }
                }
            } catch {
                metrics.writeFailures.increment()
                logger.error("could not write a check result", metadata: ["target.id": outcome.target.id.canonicalString, "error": "\(error)"])
            }
        }
        do {
            try store.writeQuiet(owner: owner, targets: quietTargets, watches: quietWatches)
        } catch {
            metrics.writeFailures.increment(by: Double(quietTargets.count))
            logger.error("could not write check results", metadata: ["targets": "\(quietTargets.count)", "error": "\(error)"])
        }
        return results
    }

    private static func quietResult(_ record: WatchCheckRecord) -> CheckResult {
        switch record.kind {
        case .quiet(let result): result
        case .content: .unchanged
        case .failed: .failed
        }
    }

    /// Fills in the diff of every content record whose hash moved from a
    /// stored one.
    private func withDiffs(_ records: [WatchCheckRecord]) throws -> [WatchCheckRecord] {
        let changed = records.filter { record in
            if case .content(let content) = record.kind { return record.watch.contentHash.map { $0 != content.hash } ?? false }
            return false
        }
        guard !changed.isEmpty else { return records }
        let snapshots = try store.snapshots(watchIDs: changed.map(\.watch.id))
        return records.map { record in
            guard case .content(var content) = record.kind, let previous = snapshots[record.watch.id],
                  record.watch.contentHash != content.hash
            else { return record }
            let diff = LineDiff(from: SnapshotLines.split(previous), to: SnapshotLines.split(content.snapshot))
            content.diff = diff.unified(maximumBytes: configuration.diffByteLimit)
            return WatchCheckRecord(watch: record.watch, kind: .content(content))
        }
    }
}
