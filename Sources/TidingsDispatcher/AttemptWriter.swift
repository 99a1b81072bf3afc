import Synchronization
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// Writes finished attempts back on a thread and connection of its own,
/// each batch what finished while the previous one was being written, so
/// that claiming never waits behind writing: the two run side by side.
/// Attempts it cannot write yet (database unreachable) stay queued and
/// are written once it answers again.
final class AttemptWriter: Sendable {
    private struct Pending {
        var attempts: [CompletedAttempt] = []
        var isStopping = false
    }

    private let store: DeliveryStore
    private let owner: String
    private let disableAfter: Duration
    private let logger: Logger
    private let disabledWebhooks: Counter?
    /// Woken after each batch written: its leases are free for the next claim.
    private let claimer: WorkerLoop
    private let writtenCount = Atomic<Int>(0)
    private let pending = AdaptiveMutex(Pending())
    private let loop = WorkerLoop(name: "tidings.dispatcher.write")

    init(store: DeliveryStore, owner: String, disableAfter: Duration, logger: Logger, disabledWebhooks: Counter?, claimer: WorkerLoop) {
        self.store = store
        self.owner = owner
        self.disableAfter = disableAfter
        self.logger = logger
        self.disabledWebhooks = disabledWebhooks
        self.claimer = claimer
    }

    /// Attempts written so far.
    var written: Int {
        writtenCount.load(ordering: .acquiring)
    }

    func start() {
        loop.start { [self] in run() }
    }

    /// Queues an attempt; ignored once stopped.
    func add(_ attempt: CompletedAttempt) {
        let queued = pending.withLock { pending in
            guard !pending.isStopping else { return false }
            pending.attempts.append(attempt)
            return true
        }
        if queued { loop.wake() }
    }

    /// Writes what is queued (one try if the database does not answer) and
    /// stops. Attempts added later are dropped: their leases are released
    /// or run out, and they are sent again.
    func stop() {
        // The flag lives with the queue, so no attempt slips in after it.
        pending.withLock { $0.isStopping = true }
        loop.stop()
    }

    private func run() {
        var backoff = Backoff()
        while true {
            let (batch, isStopping) = pending.withLock { pending in
                defer { pending.attempts.removeAll(keepingCapacity: true) }
                return (pending.attempts, pending.isStopping)
            }
            if batch.isEmpty {
                if isStopping { return }
                loop.wait(timeout: .seconds(1))
                continue
            }
            do {
                let disabled = try store.complete(batch, owner: owner, disableAfter: disableAfter)
                for webhook in disabled {
                    disabledWebhooks?.increment()
                    logger.warning("webhook disabled", metadata: ["webhook.id": webhook.id.canonicalString, "reason": webhook.reason])
                }
                backoff.reset()
                writtenCount.add(batch.count, ordering: .releasing)
                claimer.wake()
            } catch let error as PostgresError where (error.code == .server || error.code == .decoding) && !error.isSerializationFailure {
                // Retrying a statement the server refuses would never end: the
                // leases run out and the deliveries are sent again instead.
                logger.error("could not record webhook attempts; they will be sent again", metadata: [
                    "error": error.description, "attempts": String(batch.count),
                ])
            } catch {
                if isStopping {
                    logger.warning("could not record the last webhook attempts; they will be sent again", metadata: ["attempts": String(batch.count)])
                    return
                }
                // Kept, ahead of what finished meanwhile, for the next try.
                pending.withLock { $0.attempts.insert(contentsOf: batch, at: 0) }
                let retry = ContinuousClock.now + backoff.next()
                while ContinuousClock.now < retry && !pending.withLock({ $0.isStopping }) {
                    loop.wait(timeout: retry - ContinuousClock.now)
                }
            }
        }
    }
}
