import Synchronization
import Testing
import TidingsSynchronization

@Suite struct ThreadPoolTests {
    @Test func runsJobsInOrderOnOneThread() throws {
        let pool = try ThreadPool(name: "tidings.order", size: 1)
        let seen = AdaptiveMutex<[Int]>([])
        for index in 0..<500 { pool.submit { seen.withLock { $0.append(index) } } }
        pool.shutdown()
        #expect(seen.withLock { $0 } == Array(0..<500))
    }

    @Test func resultsComeBackToTheTask() async throws {
        let pool = try ThreadPool(name: "tidings.result", size: 2)
        defer { pool.shutdown() }
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
        defer { pool.shutdown() }
        weak var captured: Payload?
        do {
            let payload = Payload()
            captured = payload
            await pool.run { _ = payload }
        }
        // The worker drops its own reference just after the job returns.
        let deadline = ContinuousClock.now + .seconds(10)
        while captured != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(captured == nil)
    }

    /// After shutdown a job runs on the caller's thread: it is never lost.
    @Test func aJobAfterShutdownRunsInline() throws {
        let pool = try ThreadPool(name: "tidings.late", size: 1)
        pool.shutdown()
        let ran = Atomic<Bool>(false)
        pool.submit { ran.store(true, ordering: .releasing) }
        let didRun = ran.load(ordering: .acquiring)
        #expect(didRun)
    }
}
