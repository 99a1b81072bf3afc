import Synchronization
import Testing
import TidingsSynchronization

@Suite struct ThreadPoolTests {
    @Test func runsJobsInOrderOnOneThread() throws {
        let pool = try ThreadPool(name: "tidings.order", size: 1)
        let seen = Mutex<[Int]>([])
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
