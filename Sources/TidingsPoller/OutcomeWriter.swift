import Foundation
import TidingsDomain
import TidingsObservability
import TidingsSynchronization

/// Writes check results on `writerCount` threads, each with its own
/// database connection, so one batch commits while the next is collected.
/// Results collect for up to `writeBatchDelay` (or until `writeBatchSize`
/// are queued) and each batch is written set-based whatever its size: the
/// quiet results (304, unchanged) in one transaction, the eventful ones
/// (content, failures, state changes) in one per `eventfulTransactionBytes`
/// of content. Diffs are computed
/// on a writer thread, inside the eventful write, never on the HTTP
/// driver thread.
final class OutcomeWriter: Sendable {
    /// Results wait in turns by user (the target's tenant, as for
    /// extraction): a batch takes one result per user in turn, so one
    /// tenant's thousands of changes, and the diffs they need, delay
    /// another's result by at most one result per other user with results
    /// waiting, not by a whole backlog.
    private struct Queue {
        var pending = FairQueue<UUID?, CheckOutcome>()
        var isStopped = false

        var count: Int { pending.count }

        mutating func take(_ limit: Int) -> [CheckOutcome] {
            var batch: [CheckOutcome] = []
            batch.reserveCapacity(min(limit, count))
            while batch.count < limit, let next = pending.popFirst() { batch.append(next) }
            return batch
        }
    }

    private let store: CheckStore
    private let owner: String
    private let configuration: PollerConfiguration
    private let logger: Logger
    private let metrics: PollerMetrics
    private let queue = AdaptiveMutex(Queue())
    /// Wakes one waiting writer; a writer that leaves results behind, or
    /// sees the stop, passes the wake on to the next.
    private let wakeup = WakeSignal()
    private let threads = AdaptiveMutex<[JoinableThread]>([])
    /// Content handed to this writer and not yet written (the poller adds,
    /// `write` removes).
    let contentBacklog = ContentBacklog()

    init(store: CheckStore, owner: String, configuration: PollerConfiguration, logger: Logger, metrics: PollerMetrics) {
        self.store = store
        self.owner = owner
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    /// Starts the writer threads; `progress` runs after every batch written
    /// (the scheduler waits on it when the backlog is full).
    func start(progress: @escaping @Sendable () -> Void) {
        let started = (0..<max(configuration.writerCount, 1)).map { index in
            JoinableThread.start(name: "tidings.writer.\(index)") { [self] in run(progress: progress) }
        }
        threads.withLock { $0 = started }
    }

    /// Results queued and not yet taken by a writer.
    var backlog: Int {
        queue.withLock { $0.count }
    }

    /// Queues an outcome; after `stop` it is dropped (its lease expires or
    /// is released by shutdown).
    func submit(_ outcome: CheckOutcome) {
        let count = queue.withLock { queue -> Int? in
            guard !queue.isStopped else { return nil }
            queue.pending.append(outcome, key: outcome.target.tenant)
            return queue.count
        }
        // A writer waits for the first result, then for the batch to fill
        // or its delay to pass: waking it for every result would only cost.
        guard let count, count == 1 || count % configuration.writeBatchSize == 0 else { return }
        wakeup.wake()
    }

    /// Writes what is queued, then stops the threads.
    func stop() {
        queue.withLock { $0.isStopped = true }
        wakeup.wake()
        for thread in threads.withLock({ $0 }) { thread.join() }
    }

    private func run(progress: @Sendable () -> Void) {
        while let batch = nextBatch() {
            write(batch)
            progress()
        }
    }

    /// Waits for work, then until the batch is full or the oldest result
    /// waited `writeBatchDelay`. Nil once stopped and drained.
    private func nextBatch() -> [CheckOutcome]? {
        let size = configuration.writeBatchSize
        var deadline: ContinuousClock.Instant?
        while true {
            let due = deadline.map { ContinuousClock.now >= $0 } ?? false
            let (batch, waiting, stopped) = queue.withLock { queue in
                guard queue.count > 0, queue.count >= size || due || queue.isStopped else {
                    return ([CheckOutcome](), queue.count, queue.isStopped)
                }
                return (queue.take(size), queue.count, queue.isStopped)
            }
            if !batch.isEmpty {
                // Results left behind: an idle writer starts on them now
                // rather than after its own timeout.
                if waiting > 0 { wakeup.wake() }
                return batch
            }
            if stopped {
                wakeup.wake()
                return nil
            }
            // Another writer may have taken what this one was waiting for.
            if waiting == 0 {
                deadline = nil
            } else if deadline == nil {
                deadline = .now + configuration.writeBatchDelay
            }
            wakeup.wait(timeout: deadline.map { ContinuousClock.now.duration(to: $0) } ?? .milliseconds(500))
        }
    }

    /// Writes outcomes: the eventful ones (`writeEventful`), then the quiet
    /// rest in one transaction. Returns what each watch's check came to.
    @discardableResult
    func write(_ outcomes: [CheckOutcome]) -> [UUID: WatchCheckResult] {
        defer { contentBacklog.remove(outcomes) }
        var results: [UUID: WatchCheckResult] = [:]
        var quietTargets: [TargetCheckRecord] = []
        var quietWatches: [(watchID: UUID, result: CheckResult, checkedAt: Date)] = []
        var eventful: [CheckOutcome] = []
        let live = outcomes.filter { !$0.abandoned }
        metrics.record(live)
        for outcome in live {
            guard !outcome.isEventful else {
                eventful.append(outcome)
                continue
            }
            quietTargets.append(outcome.record)
            for watch in outcome.watches {
                let result = Self.quietResult(watch)
                if !watch.watch.alreadyRecords(result) {
                    quietWatches.append((watch.watch.id, result, outcome.record.checkedAt))
                }
                results[watch.watch.id] = WatchCheckResult(watchID: watch.watch.id, result: result, changeID: nil, state: .ok, error: nil)
            }
        }
        for result in writeEventful(eventful) {
            results[result.watchID] = result
            if result.changeID != nil { metrics.changes.increment() }
        }
        do {
            try store.writeQuiet(owner: owner, targets: quietTargets, watches: quietWatches)
        } catch {
            metrics.writeFailures.increment(by: Double(quietTargets.count))
            logger.error("could not write check results", metadata: ["targets": "\(quietTargets.count)", "error": "\(error)"])
        }
        return results
    }

    /// The eventful targets of the batch in transactions of at most
    /// `eventfulTransactionBytes` of content each (a whole batch of
    /// baselines in one held 50 MB in its parameters and libpq's buffers).
    private func writeEventful(_ outcomes: [CheckOutcome]) -> [WatchCheckResult] {
        var results: [WatchCheckResult] = []
        var start = outcomes.startIndex
        while start < outcomes.endIndex {
            var end = start + 1
            var bytes = outcomes[start].contentBytes
            while end < outcomes.endIndex, bytes + outcomes[end].contentBytes <= configuration.eventfulTransactionBytes {
                bytes += outcomes[end].contentBytes
                end += 1
            }
            results += writeEventfulTransaction(outcomes[start..<end])
            start = end
        }
        return results
    }

    /// One transaction for these eventful targets; if it fails for another
    /// reason than a conflict (retried inside), each target is tried on its
    /// own so one bad result cannot hold the others back.
    private func writeEventfulTransaction(_ outcomes: ArraySlice<CheckOutcome>) -> [WatchCheckResult] {
        guard !outcomes.isEmpty else { return [] }
        let checks = outcomes.map { TargetCheck(target: $0.record, watches: $0.watches) }
        do {
            return try store.writeEventful(owner: owner, checks: checks, diff: diff)
        } catch where checks.count > 1 {
            logger.warning("a batch of check results failed; writing them one by one", metadata: ["targets": "\(checks.count)", "error": "\(error)"])
        } catch {
            metrics.writeFailures.increment()
            logger.error("could not write a check result", metadata: ["target.id": checks[0].target.targetID.canonicalString, "error": "\(error)"])
            return []
        }
        var results: [WatchCheckResult] = []
        for check in checks {
            do {
                results += try store.writeEventful(owner: owner, checks: [check], diff: diff)
            } catch {
                metrics.writeFailures.increment()
                logger.error("could not write a check result", metadata: ["target.id": check.target.targetID.canonicalString, "error": "\(error)"])
            }
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

    /// A change's unified diff, made inside the eventful write from the
    /// snapshot it holds locked.
    private func diff(from previous: String, to current: String) -> String {
        LineDiff(from: SnapshotLines.split(previous), to: SnapshotLines.split(current))
            .unified(maximumBytes: configuration.diffByteLimit)
    }
}
