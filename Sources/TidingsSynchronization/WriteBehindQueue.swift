import Synchronization

/// The one hand-off from the threads that finish work (check tasks, the
/// dispatchers' requests) to the database: items queue here and writer
/// threads of the queue's own store them in batches, so finishing never
/// waits for a commit and one batch commits while the next collects.
///
/// Items wait in turns by key (`FairQueue`): a batch takes one item per key
/// in turn, so one key's backlog (a tenant's thousands of changes) delays
/// another's item by at most one item per other key waiting. A batch is
/// taken once `batchSize` items wait or the oldest has waited `batchDelay`.
///
/// What happens to a batch is its write's `WriteBehindVerdict`: a lost race
/// is written again at once, an unreachable store is waited out with
/// `Backoff` (the batch kept, the rest queuing behind it), a refusal is
/// dropped. Dropped items are reported to `onDrop`: the caller's leases
/// then run out and the work is done again (at least once).
package final class WriteBehindQueue<Key: Hashable & Sendable, Item: Sendable>: Sendable {
    package struct Configuration: Sendable {
        /// Thread names: `name.0`, `name.1`, ...
        package var name: String
        package var writers = 1
        package var batchSize = Int.max
        package var batchDelay: Duration = .zero
        /// Tries of a batch that keeps losing races before it is dropped.
        package var raceRetries = 5

        package init(name: String) {
            self.name = name
        }
    }

    private struct State {
        var pending = FairQueue<Key, Item>()
        var isStopping = false
    }

    private let configuration: Configuration
    private let write: @Sendable ([Item]) -> WriteBehindVerdict
    private let onDrop: @Sendable (_ count: Int, _ cause: WriteBehindVerdict) -> Void
    private let state = AdaptiveMutex(State())
    /// Wakes one waiting writer; a writer that leaves items behind, or sees
    /// the stop, passes the wake on to the next.
    private let wakeup = WakeSignal()
    /// Cuts the pauses of writers waiting out an unreachable store; passed
    /// on like `wakeup`.
    private let stopping = WakeSignal()
    private let threads = AdaptiveMutex<[JoinableThread]>([])
    private let writtenCount = Atomic<Int>(0)

    package init(
        _ configuration: Configuration,
        write: @escaping @Sendable ([Item]) -> WriteBehindVerdict,
        onDrop: @escaping @Sendable (_ count: Int, _ cause: WriteBehindVerdict) -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.write = write
        self.onDrop = onDrop
    }

    /// Starts the writer threads; `onWritten` runs after every batch
    /// written, with its size (leases or capacity it frees wake a waiter).
    package func start(onWritten: @escaping @Sendable (Int) -> Void = { _ in }) {
        let started = (0..<max(configuration.writers, 1)).map { index in
            JoinableThread.start(name: "\(configuration.name).\(index)") { [self] in run(onWritten: onWritten) }
        }
        threads.withLock { $0 = started }
    }

    /// Items queued and not yet taken by a writer.
    package var backlog: Int {
        state.withLock { $0.pending.count }
    }

    /// Items written so far.
    package var written: Int {
        writtenCount.load(ordering: .acquiring)
    }

    /// Queues an item in `key`'s turn; ignored once stopping.
    package func submit(_ item: Item, key: Key) {
        let count = state.withLock { state -> Int? in
            guard !state.isStopping else { return nil }
            state.pending.append(item, key: key)
            return state.pending.count
        }
        // A writer waits for the first item, then for the batch to fill or
        // its delay to pass: waking it for every item would only cost.
        guard let count, count == 1 || count % configuration.batchSize == 0 else { return }
        wakeup.wake()
    }

    /// Writes what is queued, then joins the writers. Should the store not
    /// answer meanwhile, what is left is dropped (to `onDrop`) rather than
    /// waited for. Items submitted from here on are ignored.
    package func stop() {
        state.withLock { $0.isStopping = true }
        wakeup.wake()
        stopping.wake()
        for thread in threads.withLock({ threads in
            defer { threads = [] }; return threads
        }) { thread.join() }
    }

    private var isStopping: Bool {
        state.withLock { $0.isStopping }
    }

    private func run(onWritten: @Sendable (Int) -> Void) {
        while let batch = nextBatch() {
            if settle(batch) { onWritten(batch.count) }
        }
    }

    /// Waits for work, then until the batch is full or the oldest item
    /// waited `batchDelay`. Nil once stopping and drained.
    private func nextBatch() -> [Item]? {
        let size = configuration.batchSize
        var deadline: ContinuousClock.Instant?
        while true {
            let due = configuration.batchDelay == .zero || deadline.map { ContinuousClock.now >= $0 } ?? false
            let (batch, waiting, stopped) = state.withLock { state in
                let count = state.pending.count
                guard count > 0, count >= size || due || state.isStopping else {
                    return ([Item](), count, state.isStopping)
                }
                var batch: [Item] = []
                batch.reserveCapacity(min(size, count))
                while batch.count < size, let next = state.pending.popFirst() { batch.append(next) }
                return (batch, state.pending.count, state.isStopping)
            }
            if !batch.isEmpty {
                // Items left behind: an idle writer starts on them now
                // rather than after its own timeout.
                if waiting > 0 { wakeup.wake() }
                return batch
            }
            if stopped {
                wakeup.wake()
                return nil
            }
            // Another writer may have taken what this one was waiting for.
            if waiting == 0 {
                deadline = nil
            } else if deadline == nil {
                deadline = .now + configuration.batchDelay
            }
            wakeup.wait(timeout: deadline.map { ContinuousClock.now.duration(to: $0) } ?? .milliseconds(500))
        }
    }

    /// Writes `batch` until it is written or dropped; true when written.
    private func settle(_ batch: [Item]) -> Bool {
        var races = 0
        var backoff = Backoff()
        while true {
            let verdict = write(batch)
            switch verdict {
            case .written:
                writtenCount.add(batch.count, ordering: .releasing)
                return true
            case .lostRace:
                races += 1
                guard races > configuration.raceRetries else { continue }
                onDrop(batch.count, verdict)
                return false
            case .refused:
                onDrop(batch.count, verdict)
                return false
            case .unreachable:
                guard !isStopping else {
                    let rest = state.withLock { $0.pending.removeAll().count }
                    onDrop(batch.count + rest, verdict)
                    return false
                }
                let retry = ContinuousClock.now + backoff.next()
                while ContinuousClock.now < retry && !isStopping {
                    stopping.wait(timeout: ContinuousClock.now.duration(to: retry))
                }
                if isStopping { stopping.wake() }
            }
        }
    }
}
