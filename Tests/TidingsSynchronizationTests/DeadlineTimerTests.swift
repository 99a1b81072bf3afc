import Glibc
import Testing
import TidingsSynchronization
import TidingsTestSupport

/// The process's timer thread, for real: actions run once their deadline
/// has passed, in deadline order, and cancelled ones never run.
@Suite struct DeadlineTimerTests {
    private final class Log: Sendable {
        private let entries = AdaptiveMutex<[(name: String, at: ContinuousClock.Instant)]>([])

        func record(_ name: String) {
            let now = ContinuousClock.now
            entries.withLock { $0.append((name, now)) }
        }

        var names: [String] { entries.withLock { $0.map(\.name) } }

        func time(of name: String) -> ContinuousClock.Instant? {
            entries.withLock { $0.first { $0.name == name }?.at }
        }

        /// Waits until `count` entries are in, or 20 s.
        func wait(for count: Int) {
            _ = eventuallyBlocking(timeout: .seconds(20), every: .milliseconds(1)) { entries.withLock { $0.count } >= count }
        }
    }

    @Test func actionsRunAfterTheirDeadlinesInDeadlineOrder() {
        let log = Log()
        let start = ContinuousClock.now
        // Far enough apart that scheduling all three cannot outlast the first.
        let deadlines = ["c": start + .milliseconds(900), "a": start + .milliseconds(300), "b": start + .milliseconds(600)]
        for (name, deadline) in deadlines {
            DeadlineTimer.shared.schedule(at: deadline) { log.record(name) }
        }
        log.wait(for: 3)
        #expect(log.names == ["a", "b", "c"])
        for (name, deadline) in deadlines {
            let ranAt = log.time(of: name)
            #expect(ranAt.map { $0 >= deadline } == true, "\(name) ran before its deadline")
        }
    }

    @Test func aCancelledActionNeverRuns() {
        let log = Log()
        let start = ContinuousClock.now
        let cancelled = DeadlineTimer.shared.schedule(at: start + .milliseconds(20)) { log.record("cancelled") }
        #expect(DeadlineTimer.shared.cancel(cancelled))
        let ran = DeadlineTimer.shared.schedule(at: start + .milliseconds(40)) { log.record("ran") }
        log.wait(for: 1)
        usleep(50_000) // a negative check: the cancelled action stays away 30 ms past "ran"
        #expect(log.names == ["ran"])
        #expect(!DeadlineTimer.shared.cancel(ran), "an action that ran cannot be cancelled")
        #expect(!DeadlineTimer.shared.cancel(cancelled))
    }

    /// The thread sleeps toward the earliest deadline it knows; an earlier
    /// one scheduled meanwhile must wake it, or it would run a minute late.
    @Test func anEarlierDeadlineWakesTheSleepingThread() {
        let log = Log()
        let far = DeadlineTimer.shared.schedule(at: .now + .seconds(60)) { log.record("far") }
        defer { DeadlineTimer.shared.cancel(far) }
        usleep(20_000) // let the thread go to sleep toward it (it shows no sign of having)
        let soon = ContinuousClock.now + .milliseconds(20)
        DeadlineTimer.shared.schedule(at: soon) { log.record("soon") }
        log.wait(for: 1)
        #expect(log.names == ["soon"])
        #expect(log.time(of: "soon").map { $0 - soon < .seconds(10) } == true)
    }

    @Test func anActionMaySchedule() {
        let log = Log()
        DeadlineTimer.shared.schedule(at: .now) {
            log.record("first")
            DeadlineTimer.shared.schedule(at: .now + .milliseconds(5)) { log.record("second") }
        }
        log.wait(for: 2)
        #expect(log.names == ["first", "second"])
    }
}
