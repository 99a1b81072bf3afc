import Testing
import TidingsSynchronization

@Suite struct DeadlineWorkerTests {
    @Test func runsItsBodyOnceTheDeadlinePasses() {
        let ran = Mailbox<ContinuousClock.Instant>()
        let worker = DeadlineWorker(name: "tidings.test.worker") { ran.deliver(.now) }
        defer { worker.stop() }
        let deadline = ContinuousClock.now + .milliseconds(100)
        worker.schedule(at: deadline)
        let at = ran.wait(timeout: .seconds(30))
        #expect(at.map { $0 >= deadline } == true)
    }

    /// The point of the worker: its body blocks on its own thread, and the
    /// process's other deadlines stay on time meanwhile.
    @Test func aBlockedBodyDoesNotHoldUpTheTimer() {
        let entered = Mailbox<Void>()
        let release = Mailbox<Void>()
        let worker = DeadlineWorker(name: "tidings.test.blocked") {
            entered.deliver(())
            release.wait()
        }
        worker.schedule(at: .now)
        #expect(entered.wait(timeout: .seconds(30)) != nil)

        let fired = Mailbox<Void>()
        DeadlineTimer.shared.schedule(at: .now + .milliseconds(20)) { fired.deliver(()) }
        #expect(fired.wait(timeout: .seconds(5)) != nil)
        release.deliver(())
        worker.stop()
    }

    @Test func aStoppedWorkerRunsNothingMore() {
        let runs = AdaptiveMutex(0)
        let worker = DeadlineWorker(name: "tidings.test.stopped") { runs.withLock { $0 += 1 } }
        worker.schedule(at: .now + .milliseconds(50))
        worker.stop()
        worker.schedule(at: .now)
        let later = Mailbox<Void>()
        DeadlineTimer.shared.schedule(at: .now + .milliseconds(200)) { later.deliver(()) }
        _ = later.wait(timeout: .seconds(30))
        #expect(runs.withLock { $0 } == 0)
    }
}
