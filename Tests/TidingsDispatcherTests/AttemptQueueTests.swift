import Foundation
import Testing
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsDispatcher

/// A dispatcher's attempts that cannot be recorded are logged as going out
/// again, never dropped in silence.
@Suite struct AttemptQueueTests {
    @Test func aRefusedBatchIsLoggedAsSentAgain() throws {
        let sink = CapturingLogSink()
        let queue = WriteBehindQueue<Int, Int>.attempts(
            what: "test items", threadName: "tidings.test.write", logger: Logger(label: "test", sink: sink)
        ) { _ in
            throw PostgresError(code: .server, sqlState: "22P02", message: "scripted")
        }
        queue.start()
        queue.submit(1, key: 0)
        #expect(
            eventuallyBlocking(timeout: .seconds(10)) {
                sink.lines.contains { $0.contains("could not record test items; they will be sent again") && $0.contains("22P02") }
            })
        queue.stop()
        #expect(queue.written == 0)
    }
}
