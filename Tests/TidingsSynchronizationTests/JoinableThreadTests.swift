import Foundation
import Synchronization
import Testing
import TidingsSynchronization

@Suite struct JoinableThreadTests {
    @Test func joinWaitsForTheBody() {
        let finished = Atomic<Bool>(false)
        let thread = JoinableThread.start(name: "tidings.test") {
            usleep(50_000) // a body that takes a while, for join to wait for
            finished.store(true, ordering: .releasing)
        }
        thread.join()
        let didFinish = finished.load(ordering: .acquiring)
        #expect(didFinish)
    }

    /// The kernel's name (what `top -H` and /proc show) is the given name
    /// without the common prefix, cut to the kernel's 15 bytes.
    @Test func namesTheThreadForTheKernel() throws {
        let names = AdaptiveMutex<[String]>([])
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
        let holder = AdaptiveMutex<JoinableThread?>(nil)
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
