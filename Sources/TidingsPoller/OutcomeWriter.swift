import Foundation
import TidingsDomain
import TidingsObservability
import TidingsSynchronization

/// Writes check outcomes to the database, on the poller's write-behind
/// queue's threads (each batch it collects) or a `checkNow` caller's.
/// A batch is at most two transactions: the quiet results (304,
/// unchanged) and the eventful ones (content, failures, state changes),
/// each set-based whatever the batch size. Diffs are computed here, inside
/// the eventful write, never on the HTTP driver thread.
final class OutcomeWriter: Sendable {
    private let store: CheckStore
    private let owner: String
    private let configuration: PollerConfiguration
    private let logger: Logger
    private let metrics: PollerMetrics

    init(store: CheckStore, owner: String, configuration: PollerConfiguration, logger: Logger, metrics: PollerMetrics) {
        self.store = store
        self.owner = owner
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    /// Writes outcomes: the eventful ones in one transaction, the quiet
    /// rest in another. Returns what each watch's check came to.
    @discardableResult
    func write(_ outcomes: [CheckOutcome]) -> [UUID: WatchCheckResult] {
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

    /// One transaction for every eventful target of the batch; if it fails
    /// for another reason than a conflict (retried inside), each target is
    /// tried on its own so one bad result cannot hold the others back.
    private func writeEventful(_ outcomes: [CheckOutcome]) -> [WatchCheckResult] {
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
