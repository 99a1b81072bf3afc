import Foundation
import Synchronization
import Testing
import TidingsSynchronization

@Suite struct JoinableThreadTests {
    @Test func joinWaitsForTheBody() {
        let finished = Atomic<Bool>(false)
        let thread = JoinableThread.start(name: "tidings.test") {
            usleep(50_000)
            finished.store(true, ordering: .releasing)
        }
        thread.join()
        let didFinish = finished.load(ordering: .acquiring)
        #expect(didFinish)
    }

    /// The kernel's name (what `top -H` and /proc show) is the given name
    /// without the common prefix, cut to the kernel's 15 bytes.
    @Test func namesTheThreadForTheKernel() throws {
        let names = Mutex<[String]>([])
        for name in ["tidings.curl", "tidings.dispatcher.write", "extraction.3"] {
            let thread = JoinableThread.start(name: name) {
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                names.withLock { $0.append(comm.trimmingCharacters(in: .newlines)) }
            }
            thread.join()
        }
        #expect(names.withLock { $0 } == ["curl", "dispatcher.writ", "extraction.3"])
    }

    /// A completion handler may shut down the engine whose thread runs it.
    @Test func joiningFromTheThreadItselfDetaches() async {
        let holder = Mutex<JoinableThread?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let thread = JoinableThread.start(name: "tidings.self") {
            ready.wait()
            holder.withLock { $0 }?.join()
            done.signal()
        }
        holder.withLock { $0 = thread }
        ready.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}

@Suite struct WakeSignalTests {
    @Test func aWakeBeforeTheWaitIsKept() {
        let signal = WakeSignal()
        signal.wake()
        let started = ContinuousClock.now
        signal.wait(timeout: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// Many wakes while the loop is busy cost it one extra turn.
    @Test func wakesCoalesce() {
        let signal = WakeSignal()
        for _ in 0..<100 { signal.wake() }
        signal.wait(timeout: .seconds(30))
        let started = ContinuousClock.now
        signal.wait(timeout: .milliseconds(200))
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }
}

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
