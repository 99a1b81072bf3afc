import Dispatch
import Synchronization
import Testing
import TidingsSynchronization
import TidingsTestSupport

@Suite struct ThreadPoolTests {
    @Test func runsJobsInOrderOnOneThread() throws {
        let pool = try ThreadPool(name: "tidings.order", size: 1)
        let seen = AdaptiveMutex<[Int]>([])
        for index in 0..<500 { pool.submit { seen.withLock { $0.append(index) } } }
        pool.stop()
        #expect(seen.withLock { $0 } == Array(0..<500))
    }

    /// A key with many jobs waiting delays another key's job by one job,
    /// not by all of them: one tenant's slow extractions queue behind each
    /// other (a hostile-input hunt saw another tenant's check go from
    /// instant to a 504 after 20 s behind 60 slow rules).
    @Test func keysTakeTurnsOnTheThreads() throws {
        let pool = try ThreadPool(name: "tidings.fair", size: 1)
        let gate = DispatchSemaphore(value: 0)
        let seen = AdaptiveMutex<[String]>([])
        // The thread is held while both keys queue up.
        pool.submit { gate.wait() }
        for index in 0..<20 { pool.submit(fairnessKey: "greedy") { seen.withLock { $0.append("greedy\(index)") } } }
        pool.submit(fairnessKey: "other") { seen.withLock { $0.append("other") } }
        gate.signal()
        pool.stop()
        let order = seen.withLock { $0 }
        #expect(order.count == 21)
        #expect(order.firstIndex(of: "other") == 1, "\(order)")
        #expect(order.filter { $0 != "other" } == (0..<20).map { "greedy\($0)" })
    }

    @Test func resultsComeBackToTheTask() async throws {
        let pool = try ThreadPool(name: "tidings.result", size: 2)
        defer { pool.stop() }
        let sums = await withTaskGroup(of: Int.self) { group in
            for value in 1...20 { group.addTask { await pool.run { value * value } } }
            return await group.reduce(0, +)
        }
        #expect(sums == (1...20).map { $0 * $0 }.reduce(0, +))
    }

    /// What a finished job captured is released while the pool lives on
    /// (extraction jobs capture whole response bodies). The pool kept the
    /// closures of its last taken jobs, so a poller's pool, whose jobs
    /// capture the checker that owns the pool, also outlived the poller
    /// (LeakSanitizer, make test-sanitize).
    @Test func aFinishedJobsCapturesAreReleased() async throws {
        final class Payload: Sendable {}
        let pool = try ThreadPool(name: "tidings.release", size: 1)
        defer { pool.stop() }
        weak var captured: Payload?
        do {
            let payload = Payload()
            captured = payload
            await pool.run { _ = payload }
        }
        // The worker drops its own reference just after the job returns.
        #expect(try await eventually(timeout: .seconds(10), every: .milliseconds(5)) { captured == nil })
    }

    /// After shutdown a job runs on the caller's thread: it is never lost.
    @Test func aJobAfterShutdownRunsInline() throws {
        let pool = try ThreadPool(name: "tidings.late", size: 1)
        pool.stop()
        let ran = Atomic<Bool>(false)
        pool.submit { ran.store(true, ordering: .releasing) }
        let didRun = ran.load(ordering: .acquiring)
        #expect(didRun)
    }

    // MARK: Abandoned jobs

    /// A job past its time limit answers its caller at once, a new thread
    /// serves the queue at full size meanwhile, and the old one ends its
    /// job at nice 19 and exits.
    @Test func aJobPastItsTimeLimitIsAbandonedWhileThePoolServesOthersAtFullSize() async throws {
        let pool = try ThreadPool(name: "tp.abandon", size: 2, abandonedThreadLimit: 8)
        defer { pool.stop() }
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let runaway = AdaptiveMutex<(thread: String, nice: Int?)?>(nil)

        let started = ContinuousClock.now
        let outcome = await pool.run(timeLimit: .milliseconds(200)) {
            _ = release.wait(timeout: .now() + 60)
            runaway.withLock { $0 = (ThreadFacts.id(), ThreadFacts.nice()) }
            return 1
        }
        let waited = started.duration(to: .now)
        #expect(outcome == .abandoned(ThreadPoolAbandonment(abandonedThreads: 1, isReplaced: true)))
        // Far from the 60 s the job holds its thread: a busy machine may
        // take seconds to schedule the answer.
        #expect(waited >= .milliseconds(200) && waited < .seconds(30), "waited \(waited)")
        #expect(pool.abandonedThreadCount == 1)

        // Two jobs that each wait for the other: they end only if two
        // threads serve the queue while the runaway holds a third.
        let (first, second) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        async let a = pool.run(timeLimit: .seconds(30)) {
            first.signal(); return second.wait(timeout: .now() + 10) == .success
        }
        async let b = pool.run(timeLimit: .seconds(30)) {
            second.signal(); return first.wait(timeout: .now() + 10) == .success
        }
        #expect(await [a, b] == [.finished(true), .finished(true)])

        release.signal()
        #expect(
            try await eventually(timeout: .seconds(10), every: .milliseconds(5)) {
                pool.abandonedThreadCount == 0 && runaway.withLock({ $0 }) != nil
            })
        let facts = try #require(runaway.withLock { $0 })
        #expect(facts.nice == 19)
        let exited = try await eventually(timeout: .seconds(10), every: .milliseconds(5)) { !ThreadFacts.isRunning(facts.thread) }
        #expect(exited, "the abandoned thread did not exit")
    }

    /// A job that ends in time is not abandoned, and the thread that ran
    /// it keeps serving at its usual priority.
    @Test func aJobWithinItsTimeLimitFinishes() async throws {
        let pool = try ThreadPool(name: "tp.intime", size: 1, abandonedThreadLimit: 4)
        defer { pool.stop() }
        #expect(await pool.run(timeLimit: .seconds(30)) { ThreadFacts.nice() } == .finished(0))
        #expect(await pool.run(timeLimit: .seconds(30)) { ThreadFacts.nice() } == .finished(0))
        #expect(pool.abandonedThreadCount == 0)
    }

    /// At the limit an abandoned worker gets no replacement: the queue
    /// waits until an abandoned job ends, and then a new thread serves it.
    @Test func pastTheLimitTheQueueWaitsForAnAbandonedJobToEnd() async throws {
        let pool = try ThreadPool(name: "tp.limit", size: 1, abandonedThreadLimit: 1)
        defer { pool.stop() }
        let (releaseFirst, releaseSecond) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        defer {
            releaseFirst.signal()
            releaseSecond.signal()
        }
        let first = await pool.run(timeLimit: .milliseconds(100)) { releaseFirst.wait(timeout: .now() + 60) == .success }
        #expect(first == .abandoned(ThreadPoolAbandonment(abandonedThreads: 1, isReplaced: true)))
        let second = await pool.run(timeLimit: .milliseconds(100)) { releaseSecond.wait(timeout: .now() + 60) == .success }
        #expect(second == .abandoned(ThreadPoolAbandonment(abandonedThreads: 2, isReplaced: false)))

        let ran = Atomic<Bool>(false)
        let queued = Task { await pool.run { ran.store(true, ordering: .releasing) } }
        // A negative check: the job must not run in this time, so a fixed wait.
        try await Task.sleep(for: .milliseconds(300))
        let ranEarly = ran.load(ordering: .acquiring)
        #expect(!ranEarly)
        releaseFirst.signal()
        await queued.value
        let ranLater = ran.load(ordering: .acquiring)
        #expect(ranLater)
    }

    /// Shutdown does not wait for abandoned jobs.
    @Test func shutdownLeavesAbandonedJobsBehind() async throws {
        let pool = try ThreadPool(name: "tp.leave", size: 1, abandonedThreadLimit: 4)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let outcome = await pool.run(timeLimit: .milliseconds(100)) { release.wait(timeout: .now() + 60) == .success }
        #expect(outcome == .abandoned(ThreadPoolAbandonment(abandonedThreads: 1, isReplaced: true)))
        let started = ContinuousClock.now
        pool.stop()
        #expect(started.duration(to: .now) < .seconds(30), "stop waited for the 60 s job")
    }
}
