import Foundation
import Testing
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport
@testable import TidingsDispatcher

/// What the writer does with a batch the database refuses: a lost race is
/// written again, a refusal is dropped, and neither holds back what follows.
@Suite struct BatchWriterTests {
    /// A write that fails with each of `failures` in turn, then records.
    final class ScriptedWrite: Sendable {
        private let state: AdaptiveMutex<(failures: [PostgresError], written: [[Int]], tries: Int)>

        init(_ failures: [PostgresError]) {
            state = AdaptiveMutex((failures, [], 0))
        }

        func callAsFunction(_ batch: [Int]) throws {
            try state.withLock { state in
                state.tries += 1
                if !state.failures.isEmpty { throw state.failures.removeFirst() }
                state.written.append(batch)
            }
        }

        var written: [Int] { state.withLock { $0.written.flatMap { $0 } } }
        var tries: Int { state.withLock { $0.tries } }
    }

    static func serverError(_ sqlState: String) -> PostgresError {
        PostgresError(code: .server, sqlState: sqlState, message: "scripted")
    }

    func run(_ failures: [PostgresError], items: [Int]) async throws -> (ScriptedWrite, CapturingLogSink) {
        let script = ScriptedWrite(failures)
        let sink = CapturingLogSink()
        let claimer = WorkerLoop(name: "test.claimer")
        let writer = BatchWriter<Int>(what: "test items", threadName: "test.writer", logger: Logger(label: "test", sink: sink), claimer: claimer) {
            try script($0)
        }
        writer.start()
        for item in items { writer.add(item) }
        // Until every item is written or the batch is dropped.
        #expect(try await eventually(timeout: .seconds(10)) {
            script.written.count == items.count || sink.lines.contains { $0.contains("will be sent again") }
        })
        writer.stop()
        return (script, sink)
    }

    @Test(arguments: ["23503", "40P01", "40001"])
    func aBatchThatLostARaceIsWrittenAgain(sqlState: String) async throws {
        let (script, sink) = try await run([Self.serverError(sqlState), Self.serverError(sqlState)], items: Array(1...5))
        #expect(script.written.sorted() == Array(1...5))
        #expect(!sink.lines.contains { $0.contains("will be sent again") })
    }

    @Test func aBatchThatKeepsLosingIsDroppedAfterItsTries() async throws {
        let failures = Array(repeating: Self.serverError("23503"), count: BatchWriter<Int>.raceRetries + 1)
        let (script, sink) = try await run(failures, items: [1])
        #expect(script.written.isEmpty)
        #expect(script.tries == BatchWriter<Int>.raceRetries + 1)
        #expect(sink.lines.contains { $0.contains("could not record test items; they will be sent again") })
    }

    @Test func aRefusedBatchIsDroppedAtOnce() async throws {
        // One item: with two, the writer may take the first alone before
        // the second is added, and write the second in a batch of its own.
        let (script, sink) = try await run([Self.serverError("22P02")], items: [1])
        #expect(script.tries == 1 && script.written.isEmpty)
        #expect(sink.lines.contains { $0.contains("could not record test items; they will be sent again") })
    }
}
