import Synchronization
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// Writes a dispatcher's finished attempts (webhook deliveries, pushes)
/// back on a thread and connection of its own, each batch what finished
/// while the previous one was being written, so that claiming never waits
/// behind writing: the two run side by side. Items it cannot write yet
/// (database unreachable) stay queued and are written once it answers
/// again; a batch that lost a race (a deadlock, or a row deleted meanwhile,
/// such as a webhook deleted while its attempt is recorded) is written
/// again at once, without what went; items the server refuses are dropped
/// with an error log (their leases run out and they are sent again: at
/// least once).
final class BatchWriter<Item: Sendable>: Sendable {
    /// Tries of one batch that keeps losing races before it is dropped.
    static var raceRetries: Int { 5 }

    private struct Pending {
        var items: [Item] = []
        var isStopping = false
    }

    /// Plural noun for log lines: "webhook attempts", "push attempts".
    private let what: String
    private let write: @Sendable ([Item]) throws -> Void
    private let logger: Logger
    /// Woken after each batch written: its leases are free for the next claim.
    private let claimer: WorkerLoop
    private let writtenCount = Atomic<Int>(0)
    private let pending = AdaptiveMutex(Pending())
    private let loop: WorkerLoop

    init(what: String, threadName: String, logger: Logger, claimer: WorkerLoop, write: @escaping @Sendable ([Item]) throws -> Void) {
        self.what = what
        self.write = write
        self.logger = logger
        self.claimer = claimer
        self.loop = WorkerLoop(name: threadName)
    }

    /// Items written so far.
    var written: Int {
        writtenCount.load(ordering: .acquiring)
    }

    func start() {
        loop.start { [self] in run() }
    }

    /// Queues an item; ignored once stopped.
    func add(_ item: Item) {
        let queued = pending.withLock { pending in
            guard !pending.isStopping else { return false }
            pending.items.append(item)
            return true
        }
        if queued { loop.wake() }
    }

    /// Writes what is queued (one try if the database does not answer) and
    /// stops. Items added later are dropped: their leases are released or
    /// run out, and they are sent again.
    func stop() {
        // The flag lives with the queue, so no item slips in after it.
        pending.withLock { $0.isStopping = true }
        loop.stop()
    }

    private func run() {
        var backoff = Backoff()
        var races = 0
        while true {
            let (batch, isStopping) = pending.withLock { pending in
                defer { pending.items.removeAll(keepingCapacity: true) }
                return (pending.items, pending.isStopping)
            }
            if batch.isEmpty {
                if isStopping { return }
                loop.wait(timeout: .seconds(1))
                continue
            }
            do {
                try write(batch)
                backoff.reset()
                races = 0
                writtenCount.add(batch.count, ordering: .releasing)
                claimer.wake()
            } catch let error as PostgresError where (error.isSerializationFailure || error.isForeignKeyViolation) && races < Self.raceRetries {
                // Once more in a fresh snapshot, which no longer sees the
                // rows deleted meanwhile; dropping the batch would send
                // every item in it again, other tenants' too.
                races += 1
                pending.withLock { $0.items.insert(contentsOf: batch, at: 0) }
            } catch let error as PostgresError where error.code == .server || error.code == .decoding {
                races = 0
                // Retrying a statement the server refuses would never end: the
                // leases run out and the work is sent again instead.
                logger.error("could not record \(what); they will be sent again", metadata: [
                    "error": error.description, "count": String(batch.count),
                ])
            } catch {
                if isStopping {
                    logger.warning("could not record the last \(what); they will be sent again", metadata: ["count": String(batch.count)])
                    return
                }
                // Kept, ahead of what finished meanwhile, for the next try.
                pending.withLock { $0.items.insert(contentsOf: batch, at: 0) }
                let retry = ContinuousClock.now + backoff.next()
                while ContinuousClock.now < retry && !pending.withLock({ $0.isStopping }) {
                    loop.wait(timeout: retry - ContinuousClock.now)
                }
            }
        }
    }
}
