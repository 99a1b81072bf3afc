import Foundation
import Testing
import TidingsSynchronization

@Suite struct AdaptiveMutexTests {
    @Test func concurrentUpdatesAreNeitherLostNorTorn() async {
        let mutex = AdaptiveMutex((count: 0, log: [Int]()))
        let threads = 16
        let perThread = 5_000
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread {
                for _ in 0..<perThread {
                    mutex.withLock { state in
                        state.count += 1
                        state.log.append(thread)
                    }
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        let (count, log) = mutex.withLock { ($0.count, $0.log) }
        #expect(count == threads * perThread)
        #expect(log.count == threads * perThread)
        for thread in 0..<threads {
            #expect(log.filter { $0 == thread }.count == perThread)
        }
    }

    /// An empty value guarding state outside the mutex (the log sink's
    /// write lock). Under ThreadSanitizer (make test-sanitize) this
    /// reported a race while the value was a stored property: TSan took
    /// the exclusivity check of the empty value for a write to the
    /// object's header, which the next caller reads before it locks.
    @Test func anEmptyValueGuardsStateOutsideTheMutex() {
        final class Outside: @unchecked Sendable {
            var count = 0
        }
        let mutex = AdaptiveMutex(())
        let outside = Outside()
        let threads = 8
        let perThread = 2_000
        let finished = DispatchGroup()
        for _ in 0..<threads {
            finished.enter()
            Thread {
                for _ in 0..<perThread {
                    mutex.withLock { _ in outside.count += 1 }
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        #expect(mutex.withLock { _ in outside.count } == threads * perThread)
    }

    @Test func aThrowingBodyReleasesTheLock() {
        struct Refused: Error {}
        let mutex = AdaptiveMutex(1)
        #expect(throws: Refused.self) { try mutex.withLock { _ in throw Refused() } }
        #expect(
            mutex.withLock { value in
                value += 1; return value
            } == 2)
    }
}
