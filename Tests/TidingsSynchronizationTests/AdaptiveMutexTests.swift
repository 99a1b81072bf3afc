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

    @Test func aThrowingBodyReleasesTheLock() {
        struct Refused: Error {}
        let mutex = AdaptiveMutex(1)
        #expect(throws: Refused.self) { try mutex.withLock { _ in throw Refused() } }
        #expect(mutex.withLock { value in value += 1; return value } == 2)
    }
}
