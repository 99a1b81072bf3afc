import Dispatch
import Foundation
import Testing
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// Group commit without a database: concurrent callers share batches, each
/// gets its own output, and failures reach the right callers.
@Suite struct BatchingQueueTests {
    private struct Failure: Error {}

    /// Records each batch; the first call waits until every caller has
    /// submitted, so the rest pile up into later batches.
    private final class Recorder: Sendable {
        let batches = AdaptiveMutex<[[Int]]>([])
        let gate = DispatchSemaphore(value: 0)
        let firstCall = AdaptiveMutex(true)

        func record(_ inputs: [Int]) {
            let first = firstCall.withLock { first in
                defer { first = false }
                return first
            }
            if first { gate.wait() }
            batches.withLock { $0.append(inputs) }
        }
    }

    @Test func concurrentCallersShareBatchesAndGetTheirOwnOutputs() {
        let recorder = Recorder()
        let queue = BatchingQueue<Int, Int>(
            maxBatchSize: 8,
            runBatch: { inputs in
                recorder.record(inputs)
                return inputs.map { $0 * 10 }
            },
            runOne: { input in
                recorder.record([input])
                return input * 10
            }
        )
        let callers = 20
        let outputs = AdaptiveMutex([Int: Int]())
        let submitted = DispatchGroup()
        let done = DispatchGroup()
        for input in 0..<callers {
            submitted.enter()
            done.enter()
            Thread.detachNewThread {
                submitted.leave()
                let output = try? queue.submit(input)
                outputs.withLock { $0[input] = output }
                done.leave()
            }
        }
        submitted.wait()
        // Every other caller queued behind the blocked first batch.
        #expect(eventuallyBlocking(timeout: .seconds(20), every: .milliseconds(1)) { queue.waitingCount == callers - 1 })
        recorder.gate.signal()
        done.wait()

        #expect(outputs.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<callers).map { ($0, $0 * 10) }))
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.flatMap { $0 }.sorted() == Array(0..<callers))
        #expect(batches.allSatisfy { $0.count <= 8 })
        #expect(batches.count < callers, "callers that arrive while a batch runs share the next one")
    }

    @Test func aLoneCallerRunsAloneAtOnce() throws {
        let queue = BatchingQueue<Int, Int>(
            runBatch: { _ in
                Issue.record("a single input must not run as a batch"); return []
            },
            runOne: { $0 + 1 }
        )
        #expect(try queue.submit(1) == 2)
        #expect(try queue.submit(2) == 3)
    }

    @Test func aServerErrorRetriesEachInputAloneSoOnlyTheBadOneFails() throws {
        let queue = BatchingQueue<Int, Int>(
            runBatch: { _ in throw PostgresError(code: .server, sqlState: "23514", message: "check violation") },
            runOne: { input in
                guard input != 3 else { throw PostgresError(code: .server, sqlState: "23514", message: "check violation") }
                return input
            }
        )
        let results = Self.submitConcurrently(queue, inputs: Array(0..<6))
        for (input, result) in results {
            if input == 3 {
                #expect(throws: PostgresError.self) { try result.get() }
            } else {
                #expect(try result.get() == input)
            }
        }
    }

    @Test func otherErrorsReachEveryCallerOfTheBatch() {
        let queue = BatchingQueue<Int, Int>(runBatch: { _ in throw Failure() }, runOne: { _ in throw Failure() })
        for (_, result) in Self.submitConcurrently(queue, inputs: Array(0..<6)) {
            #expect(throws: Failure.self) { try result.get() }
        }
    }

    private static func submitConcurrently(_ queue: BatchingQueue<Int, Int>, inputs: [Int]) -> [(Int, Result<Int, any Error>)] {
        let results = AdaptiveMutex([(Int, Result<Int, any Error>)]())
        let done = DispatchGroup()
        for input in inputs {
            done.enter()
            Thread.detachNewThread {
                let result = Result { try queue.submit(input) }
                results.withLock { $0.append((input, result)) }
                done.leave()
            }
        }
        done.wait()
        return results.withLock { $0 }
    }
}
