import Testing
import TidingsSynchronization
import TidingsTestSupport

/// What the write-behind queue does with each verdict, how it batches and
/// takes turns, and what a stop writes and drops.
@Suite struct WriteBehindQueueTests {
    struct Scripted: Error {}

    /// A write that returns each of `verdicts` in turn, then `.written`,
    /// recording the batches it was given and the drops reported.
    final class Store: Sendable {
        private let state: AdaptiveMutex<(verdicts: [WriteBehindVerdict], batches: [[String]], tries: Int, dropped: [Int])>

        init(_ verdicts: [WriteBehindVerdict] = []) {
            state = AdaptiveMutex((verdicts, [], 0, []))
        }

        func write(_ batch: [String]) -> WriteBehindVerdict {
            state.withLock { state in
                state.tries += 1
                if !state.verdicts.isEmpty { return state.verdicts.removeFirst() }
                state.batches.append(batch)
                return .written
            }
        }

        func drop(_ count: Int) {
            state.withLock { $0.dropped.append(count) }
        }

        var batches: [[String]] { state.withLock { $0.batches } }
        var written: [String] { batches.flatMap { $0 } }
        var tries: Int { state.withLock { $0.tries } }
        var dropped: [Int] { state.withLock { $0.dropped } }
    }

    static func queue(
        _ store: Store, configure: (inout WriteBehindQueue<String, String>.Configuration) -> Void = { _ in }
    ) -> WriteBehindQueue<String, String> {
        var configuration = WriteBehindQueue<String, String>.Configuration(name: "tidings.test.writer")
        configure(&configuration)
        return WriteBehindQueue(configuration, write: store.write, onDrop: { count, _ in store.drop(count) })
    }

    @Test func aBatchThatLostARaceIsWrittenAgain() throws {
        let store = Store([.lostRace(Scripted()), .lostRace(Scripted())])
        let queue = Self.queue(store)
        queue.start()
        for item in ["a", "b", "c"] { queue.submit(item, key: "k") }
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.written.count == 3 })
        queue.stop()
        #expect(store.written.sorted() == ["a", "b", "c"])
        #expect(store.dropped.isEmpty)
        #expect(queue.written == 3)
    }

    @Test func aBatchThatKeepsLosingIsDroppedAfterItsTries() throws {
        let store = Store(Array(repeating: .lostRace(Scripted()), count: 6))
        let queue = Self.queue(store) { $0.raceRetries = 5 }
        queue.start()
        queue.submit("a", key: "k")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.dropped == [1] })
        queue.stop()
        #expect(store.tries == 6)
        #expect(store.written.isEmpty && queue.written == 0)
    }

    @Test func aRefusedBatchIsDroppedAtOnceAndTheNextIsWritten() throws {
        let store = Store([.refused(Scripted())])
        let queue = Self.queue(store)
        queue.start()
        queue.submit("refused", key: "k")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.dropped == [1] })
        queue.submit("next", key: "k")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.written == ["next"] })
        queue.stop()
        #expect(store.tries == 2)
    }

    @Test func anUnreachableStoreIsWaitedOutAndNothingIsLost() throws {
        let store = Store([.unreachable(Scripted()), .unreachable(Scripted())])
        let queue = Self.queue(store)
        let written = AdaptiveMutex(0)
        queue.start { count in written.withLock { $0 += count } }
        queue.submit("a", key: "k")
        // Queued while the first batch waits for the store.
        queue.submit("b", key: "k")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.written.sorted() == ["a", "b"] })
        queue.stop()
        #expect(store.dropped.isEmpty)
        #expect(written.withLock { $0 } == 2)
    }

    @Test func aStopWhileTheStoreIsAwayDropsWhatIsLeftWithoutWaiting() throws {
        let store = Store(Array(repeating: .unreachable(Scripted()), count: 1_000))
        let queue = Self.queue(store)
        queue.start()
        queue.submit("a", key: "k")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.tries >= 1 })
        for item in ["b", "c"] { queue.submit(item, key: "k") }
        let stopping = ContinuousClock.now
        queue.stop()
        // The pause before the next try is cut short: one more try, then
        // the batch and the two queued behind it are dropped.
        #expect(ContinuousClock.now - stopping < Backoff.longest)
        #expect(store.dropped.reduce(0, +) == 3)
        #expect(store.written.isEmpty)
    }

    @Test func aBatchTakesOneItemPerKeyInTurn() throws {
        let store = Store()
        let queue = Self.queue(store) { $0.batchSize = 2 }
        for item in ["a1", "a2", "a3", "a4"] { queue.submit(item, key: "a") }
        queue.submit("b1", key: "b")
        queue.start()
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.written.count == 5 })
        queue.stop()
        #expect(store.batches.first.map(Set.init) == ["a1", "b1"])
        #expect(store.batches.allSatisfy { $0.count <= 2 })
    }

    @Test func aFullBatchGoesAtOnceAndStopWritesThePartialOne() throws {
        let store = Store()
        // Far longer than the test waits: only a full batch or the stop
        // can send these.
        let queue = Self.queue(store) {
            $0.batchSize = 3
            $0.batchDelay = .seconds(600)
        }
        queue.start()
        for item in ["a", "b", "c", "d"] { queue.submit(item, key: "k") }
        #expect(eventuallyBlocking(timeout: .seconds(10)) { store.batches == [["a", "b", "c"]] })
        queue.stop()
        #expect(store.batches == [["a", "b", "c"], ["d"]])
    }

    @Test func itemsSubmittedAfterTheStopAreIgnored() {
        let store = Store()
        let queue = Self.queue(store) { $0.writers = 2 }
        queue.start()
        queue.stop()
        queue.submit("late", key: "k")
        #expect(queue.backlog == 0)
        #expect(store.tries == 0)
    }
}
