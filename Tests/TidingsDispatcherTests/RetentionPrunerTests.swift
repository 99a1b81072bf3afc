import Foundation
import Testing
import TidingsObservability
import TidingsSynchronization

@testable import TidingsDispatcher

/// Rounds of retention pruning on a dispatcher's loop: due on schedule, a
/// batch at a time, never longer than a slice, and back soon while rows
/// remain.
@Suite struct RetentionPrunerTests {
    let logger = Logger(label: "test", sink: CapturingLogSink())

    @Test func aRoundDeletesBatchesUntilOneComesBackShort() {
        var pruner = RetentionPruner("rows", interval: .seconds(600), firstRoundAfter: .zero)
        var sizes = [1000, 1000, 1000, 7]
        var calls = 0
        pruner.pruneIfDue(logger: logger) { batchSize in
            calls += 1
            #expect(batchSize == RetentionPruner.batchSize)
            return sizes.removeFirst()
        }
        #expect(calls == 4)
        // Done: the next round is an interval away, not a pause.
        pruner.pruneIfDue(now: .now + RetentionPruner.pause + .seconds(1), logger: logger) { _ in
            Issue.record("a round ran before its interval")
            return 0
        }
    }

    /// A backlog larger than a slice: the round stops at the slice and the
    /// next one comes a pause later, not an interval.
    @Test func aBacklogIsDeletedInSlices() {
        var pruner = RetentionPruner("rows", interval: .seconds(600), firstRoundAfter: .zero)
        let started = ContinuousClock.now
        var calls = 0
        pruner.pruneIfDue(logger: logger) { batchSize in
            calls += 1
            Thread.sleep(forTimeInterval: 0.03) // a batch's delete takes time, which the slice bounds
            return batchSize
        }
        #expect(calls >= 1 && calls < 100, "\(calls) batches in one round")
        let ended = ContinuousClock.now
        #expect(ended - started >= RetentionPruner.slice)

        pruner.pruneIfDue(now: ended, logger: logger) { _ in
            Issue.record("a round ran again at once")
            return 0
        }
        var resumed = false
        pruner.pruneIfDue(now: ended + RetentionPruner.pause + .milliseconds(100), logger: logger) { _ in
            resumed = true
            return 0
        }
        #expect(resumed)
    }

    @Test func aFailedRoundIsTriedAfterTheInterval() {
        let sink = CapturingLogSink()
        var pruner = RetentionPruner("rows", interval: .seconds(600), firstRoundAfter: .zero)
        pruner.pruneIfDue(logger: Logger(label: "test", sink: sink)) { _ in throw CancellationError() }
        #expect(sink.lines.contains { $0.contains("could not prune old rows") })
        pruner.pruneIfDue(now: .now + RetentionPruner.pause + .seconds(1), logger: logger) { _ in
            Issue.record("a failed round was retried before its interval")
            return 0
        }
    }
}
