import Glibc
import Synchronization
import Testing
import TidingsSynchronization
import TidingsTestSupport

@Suite struct WorkerLoopTests {
    /// A loop sleeping a long wait stops at once, and `stop` returns only
    /// after its body has.
    @Test func stopEndsALongWaitAndJoins() {
        let loop = WorkerLoop(name: "tidings.test.loop")
        let turns = Atomic<Int>(0)
        let ended = Atomic<Bool>(false)
        loop.start {
            while !loop.isStopping {
                turns.add(1, ordering: .relaxed)
                loop.wait(timeout: .seconds(60))
            }
            ended.store(true, ordering: .releasing)
        }
        let started = ContinuousClock.now
        let stopped = loop.stop()
        let bodyEnded = ended.load(ordering: .acquiring)
        #expect(stopped)
        #expect(bodyEnded)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(!loop.isRunning)
    }

    @Test func aWakeEndsTheCurrentWait() {
        let loop = WorkerLoop(name: "tidings.test.wake")
        let turns = Atomic<Int>(0)
        loop.start {
            while !loop.isStopping {
                turns.add(1, ordering: .releasing)
                loop.wait(timeout: .seconds(60))
            }
        }
        defer { loop.stop() }
        _ = eventuallyBlocking(timeout: .seconds(20), every: .milliseconds(1)) { turns.load(ordering: .acquiring) >= 1 }
        loop.wake()
        _ = eventuallyBlocking(timeout: .seconds(20), every: .milliseconds(1)) { turns.load(ordering: .acquiring) >= 2 }
        let turnsTaken = turns.load(ordering: .acquiring)
        #expect(turnsTaken == 2)
    }

    @Test func startsOnceAndNeverAfterStop() {
        let loop = WorkerLoop(name: "tidings.test.once")
        #expect(!loop.stop())
        let ran = Atomic<Bool>(false)
        loop.start { ran.store(true, ordering: .releasing) }
        let didRun = ran.load(ordering: .acquiring)
        #expect(!didRun)
        #expect(!loop.isRunning)

        let other = WorkerLoop(name: "tidings.test.twice")
        let runs = Atomic<Int>(0)
        other.start { runs.add(1, ordering: .relaxed) }
        other.start { runs.add(1, ordering: .relaxed) }
        other.stop()
        let runCount = runs.load(ordering: .relaxed)
        #expect(runCount == 1)
    }
}
