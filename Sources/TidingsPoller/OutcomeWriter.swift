import Foundation
import TidingsDomain
import TidingsObservability
import TidingsSynchronization

/// Writes check outcomes to the database, on the poller's write-behind
/// queue's threads (each batch it collects) or a `checkNow` caller's.
/// Each batch is written set-based whatever its size: the quiet results
/// (304, unchanged) in one transaction, the eventful ones (content,
/// failures, state changes) in one per `eventfulTransactionBytes` of
/// content. Diffs are computed here, inside the eventful write, never on
/// the HTTP driver thread.
final class OutcomeWriter: Sendable {
    private let store: CheckStore
    private let owner: String
    private let configuration: PollerConfiguration
    private let logger: Logger
    private let metrics: PollerMetrics
    /// Content handed to this writer and not yet written (the poller adds,
    /// `write` removes).
    let contentBacklog = ContentBacklog()
    /// When the targets this poller holds are next due (the scheduler
    /// takes them, `write` puts them back).
    let heldSchedule = AdaptiveMutex(HeldSchedule())
    private let holds = AdaptiveMutex(TargetHolds())

    init(store: CheckStore, owner: String, configuration: PollerConfiguration, logger: Logger, metrics: PollerMetrics) {
        self.store = store
        self.owner = owner
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    /// The live pollers, as the heartbeat counts them: alone, this one
    /// keeps every target it checks held (`TargetHolds`).
    func share(among owners: LiveOwners) {
        holds.withLock { $0.share(among: owners) }
    }

    /// Writes outcomes: the eventful ones (`writeEventful`), then the quiet
    /// rest in one transaction. Returns what each watch's check came to.
    ///
    /// Every target of the batch goes back on `heldSchedule` at its next
    /// check (an abandoned check's at once), written or not: the scheduler's
    /// read of it then finds whether this poller still holds it, so neither
    /// a failed write nor a given-back hold can leave a target held with
    /// nobody to look at it. A quiet result written with its hold kept goes
    /// back with the target as written, which spares that read.
    @discardableResult
    func write(_ outcomes: [CheckOutcome]) -> [UUID: WatchCheckResult] {
        // Without a scheduler (concurrency 0: checks asked for through the
        // API only) nothing would come back to a held target.
        let schedules = configuration.concurrency > 0
        var copies: [UUID: ClaimedTarget] = [:]
        defer {
            contentBacklog.remove(outcomes)
            if schedules { holdAgain(outcomes, copies: copies) }
        }
        var results: [UUID: WatchCheckResult] = [:]
        var quietWatches: [QuietWatchResult] = []
        var quiet: [CheckOutcome] = []
        var eventful: [CheckOutcome] = []
        var live = outcomes.filter { !$0.abandoned }
        holds.withLock { holds in
            for index in live.indices { live[index].record.keepsHold = schedules && holds.keepsNext() }
        }
        metrics.record(live)
        for outcome in live {
            guard !outcome.isEventful else {
                eventful.append(outcome)
                continue
            }
            quiet.append(outcome)
            for watch in outcome.watches {
                let result = Self.quietResult(watch)
                if !watch.watch.alreadyRecords(result) {
                    quietWatches.append(
                        QuietWatchResult(
                            watchID: watch.watch.id, result: result, checkedAt: outcome.record.checkedAt,
                            underHold: outcome.record.underHold))
                }
                results[watch.watch.id] = WatchCheckResult(watchID: watch.watch.id, result: result, changeID: nil, state: .ok, error: nil)
            }
        }
        for result in writeEventful(eventful) {
            results[result.watchID] = result
            if result.changeID != nil { metrics.changes.increment() }
        }
        do {
            let written = try store.writeQuiet(owner: owner, targets: quiet.map(\.record), watches: quietWatches)
            if written.count < quiet.count { metrics.writesRefused.increment(by: Double(quiet.count - written.count)) }
            for outcome in quiet where outcome.record.keepsHold && written.contains(outcome.target.id) {
                let watchResults = outcome.watches.reduce(into: [:]) { $0[$1.watch.id] = Self.quietResult($1) }
                copies[outcome.target.id] = outcome.target.afterQuietWrite(outcome.record, results: watchResults)
            }
        } catch {
            metrics.writeFailures.increment(by: Double(quiet.count))
            logger.error("could not write check results", metadata: ["targets": "\(quiet.count)", "error": "\(error)"])
        }
        return results
    }

    /// `copies`: the targets of quiet results written with their hold
    /// kept, as written.
    private func holdAgain(_ outcomes: [CheckOutcome], copies: [UUID: ClaimedTarget]) {
        heldSchedule.withLock { schedule in
            for outcome in outcomes {
                let due = outcome.abandoned ? outcome.record.checkedAt : outcome.record.nextCheckAt
                schedule.hold(
                    outcome.target.id, due: due, users: outcome.target.watches.map(\.userID), copy: copies[outcome.target.id])
            }
        }
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
        } catch  where checks.count > 1 {
            logger.warning(
                "a batch of check results failed; writing them one by one", metadata: ["targets": "\(checks.count)", "error": "\(error)"])
        } catch {
            metrics.writeFailures.increment()
            logger.error(
                "could not write a check result", metadata: ["target.id": checks[0].target.targetID.canonicalString, "error": "\(error)"])
            return []
        }
        var results: [WatchCheckResult] = []
        for check in checks {
            do {
                results += try store.writeEventful(owner: owner, checks: [check], diff: diff)
            } catch {
                metrics.writeFailures.increment()
                logger.error(
                    "could not write a check result", metadata: ["target.id": check.target.targetID.canonicalString, "error": "\(error)"])
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
