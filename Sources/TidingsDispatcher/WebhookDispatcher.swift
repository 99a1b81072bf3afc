import FoundationEssentials
package import TidingsDomain
import TidingsHTTPClient
package import TidingsObservability
package import TidingsPostgres
import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#endif

/// Sends webhook deliveries: claims due ones under a lease, posts them
/// signed through libcurl multi (many in flight, at most
/// `perWebhookConcurrency` per webhook), writes each attempt back in
/// batches and schedules retries. The table is the source of truth: the
/// loop polls it, and NOTIFY on `tidings_deliveries` only wakes it sooner.
///
/// One loop thread claims; a `WriteBehindQueue` writes finished attempts
/// back on its own thread and connection meanwhile. A claim may lease a
/// few deliveries per webhook beyond the cap (`DeliverySlots` queues
/// them); the HTTP client's thread hands each finished attempt to the
/// writer and sends the next queued delivery of the same webhook at once,
/// so a slot does not sit idle for a database round trip. Results not yet
/// written survive a lost database (they are written once it is back); a
/// crash loses them, and those deliveries are sent again with the same
/// `webhook-id`: at least once. A `LeaseHeartbeat` keeps this dispatcher's
/// row in `lease_owners` beating; requests start only while it is fresh,
/// and once it is stale for longer than a request can take, any process
/// frees its leases (a crashed dispatcher's queue goes out again within
/// about the timeout plus a few seconds, not when the long leases of
/// queued deliveries run out).
package final class WebhookDispatcher: Service {
    /// The longest a claim waits under load for the writer to free leases.
    /// The local queues keep the slots busy meanwhile; a longer turn makes
    /// each claim a larger batch (its fixed cost, finding the due rows and
    /// counting the leases, is most of a small claim's) and adds at most
    /// this much to a new delivery's wait while others are in flight.
    static let turnInterval: Duration = .milliseconds(20)
    /// How often a claim sweeps every webhook that is not skipped (see
    /// `DeliveryStore.ClaimRequest.sweep`) while claims come back short:
    /// what lies past the due rows a claim reads (behind a full webhook's
    /// backlog, or another dispatcher's leases) is found within about this
    /// long. Its cost is an index probe per enabled webhook.
    static let sweepInterval: Duration = .seconds(1)
    /// Due rows a claim reads beyond this process's own leases and its
    /// batch: room for other dispatchers' leases and skipped webhooks'
    /// rows among them; what lies further waits for the sweep.
    static let claimReadAhead = 1024

    package let configuration: DispatcherConfiguration
    /// Names this process in `deliveries.lease_owner`.
    package let leaseOwner: String

    private let pool: PostgresClient
    private let store: DeliveryStore
    /// Opens the sealed signing secrets when a message is signed.
    private let secrets: StoredSecrets
    private let client: HTTPClient
    private let policy: RetryPolicy
    private let logger: Logger
    private let waker: NotificationWaker
    /// Shared by the loop and the HTTP client's thread.
    private let slots: AdaptiveMutex<DeliverySlots>
    private let writer: WriteBehindQueue<UUID, CompletedAttempt>
    /// The claim loop; woken by notifications, the writer and the heartbeat.
    private let loop = WorkerLoop(name: "tidings.dispatcher")
    /// Set by `stop`: the drain waits for attempts in flight no later.
    private let stopDeadline = AdaptiveMutex<ContinuousClock.Instant?>(nil)
    private let heartbeat: LeaseHeartbeat
    private let attempts: Counter?
    private let disabledWebhooks: Counter?

    /// Creates the dispatcher on `parts` (`WebhookDispatcherParts.make`
    /// for the ones a running Tidings uses), which it stops when it stops;
    /// `listen` names the server whose notifications wake it.
    package init(
        configuration: DispatcherConfiguration, parts: WebhookDispatcherParts, listen: PostgresConfiguration,
        secrets: StoredSecrets, process: LeaseProcess = LeaseProcess(), logger: Logger, metrics: MetricsRegistry? = nil
    ) {
        self.configuration = configuration
        self.secrets = secrets
        self.leaseOwner = "\(Self.hostName())/\(UUID().canonicalString.prefix(8))"
        self.pool = parts.pool
        self.store = DeliveryStore(database: pool)
        self.policy = RetryPolicy(schedule: configuration.retrySchedule)
        // A queued delivery is started only with a whole fresh lease left,
        // and nothing starts before the first heartbeat.
        var slots = DeliverySlots(
            cap: configuration.perWebhookConcurrency,
            hostCap: configuration.perHostConcurrency,
            userCap: configuration.userConcurrency,
            maxInFlight: configuration.maxInFlight,
            leaseNeeded: configuration.leaseDuration
        )
        slots.startBy = .now
        self.slots = AdaptiveMutex(slots)
        var logger = logger
        logger[metadataKey: "dispatcher"] = leaseOwner
        self.logger = logger
        self.client = parts.client
        self.heartbeat = LeaseHeartbeat(
            owner: leaseOwner, process: process, holds: .deliveries, inFlightGrace: configuration.inFlightGrace,
            database: pool, logger: logger
        )
        self.waker = NotificationWaker(
            channel: DeliveryStore.notificationChannel, what: "deliveries", configuration: listen, loop: loop, logger: logger
        )
        self.attempts = metrics?.counter(
            "tidings_webhook_attempts_total", help: "Webhook delivery attempts by result (succeeded, retry, failed, gone).")
        self.disabledWebhooks = metrics?.counter(
            "tidings_webhooks_disabled_total", help: "Webhooks the dispatcher disabled (410 Gone or failing too long).")
        self.writer = .attempts(what: "webhook attempts", threadName: "tidings.dispatcher.write", logger: logger) {
            [store, leaseOwner, disableAfter = configuration.disableAfter, disabledWebhooks, logger] batch in
            for webhook in try store.complete(batch, owner: leaseOwner, disableAfter: disableAfter) {
                disabledWebhooks?.increment()
                logger.warning("webhook disabled", metadata: ["webhook.id": webhook.id.canonicalString, "reason": webhook.reason])
            }
        }
        if let metrics {
            metrics.gauge("tidings_webhook_deliveries_in_flight", help: "Webhook requests in flight in this process.")
                .observe { [weak self] in Double(self?.slots.withLock { $0.inFlightCount } ?? 0) }
            metrics.gauge(
                "tidings_webhook_host_concurrency",
                help:
                    "Webhook requests in flight this process allows per receiver host: TIDINGS_WEBHOOK_HOST_CONCURRENCY shared among the live dispatchers."
            )
            .observe { [weak self] in Double(self?.slots.withLock { $0.hostCap } ?? 0) }
        }
    }

    package func start() {
        heartbeat.start(
            onAlive: { [weak self] startBy in self?.alive(until: startBy) },
            onReaped: { [weak self] in self?.forgetQueued() },
            onOwners: { [weak self] owners in self?.shareHostCap(among: owners) }
        )
        waker.start()
        writer.start { [loop] _ in loop.wake() }
        loop.start { [self] in run() }
        logger.info("webhook dispatcher started")
    }

    /// Stops claiming, gives attempts in flight the grace period (no later
    /// than `deadline`), writes what finished, releases the leases of the
    /// rest (they go out again at once from another dispatcher or the next
    /// start), then stops the HTTP client. Safe to call more than once.
    package func stop(deadline: ContinuousClock.Instant) {
        stopDeadline.withLock { $0 = deadline }
        if loop.stop() { logger.info("webhook dispatcher stopped") }
        waker.stop()
        client.stop()
        heartbeat.stop()
        pool.stop()
    }

    /// The heartbeat confirmed: requests may start until `startBy`. Fills
    /// the slots left free while they could not.
    private func alive(until startBy: ContinuousClock.Instant) {
        let (wasAlive, resumed) = slots.withLock { slots in
            let now = ContinuousClock.now
            let wasAlive = slots.mayStart(at: now)
            slots.startBy = startBy
            return (wasAlive, slots.resume(now: now))
        }
        for delivery in resumed { send(delivery) }
        // The loop waits while it may not claim.
        if !wasAlive { loop.wake() }
    }

    /// The live dispatchers changed: this one's share of each receiver
    /// host's cap follows.
    private func shareHostCap(among owners: LiveOwners) {
        let started = slots.withLock { $0.shareHostCap(among: owners, now: .now) }
        for delivery in started { send(delivery) }
    }

    /// Another process found this one dead (its heartbeat stalled) and
    /// freed its leases: what waits here may be someone else's by now.
    private func forgetQueued() {
        let dropped = slots.withLock { $0.dropQueued() }
        do {
            // Leases a claim took as the reap went on; in flight, by then,
            // is nothing started before the stall (those requests have ended).
            try store.releaseLeases(owner: leaseOwner)
        } catch {
            logger.warning("could not release delivery leases; they expire on their own", metadata: ["error": "\(error)"])
        }
        logger.warning("forgot queued deliveries whose leases were freed", metadata: ["deliveries": String(dropped)])
    }

    // MARK: The loop

    private func run() {
        var backoff = Backoff()
        var pruner = RetentionPruner("events", interval: configuration.pruneInterval)
        var lastClaim = ContinuousClock.now - Self.turnInterval
        var writtenAtClaim = 0
        var moreToClaim = false
        var cameBackShort = false
        var lastSweep = ContinuousClock.now - Self.sweepInterval
        var dropped = 0
        while !loop.isStopping {
            let (started, snapshot) = slots.withLock { slots in
                (slots.startWaiting(now: .now), ClaimSnapshot(slots, configuration: configuration))
            }
            for delivery in started { send(delivery) }
            let (alive, held, droppedNow) = (snapshot.alive, snapshot.held, snapshot.dropped)
            if droppedNow > dropped {
                logger.warning(
                    "queued deliveries waited too long to be sent; they go out when their leases run out",
                    metadata: [
                        "deliveries": String(droppedNow - dropped)
                    ])
                dropped = droppedNow
            }
            // Nothing starts without a fresh heartbeat: no claim either (the
            // heartbeat wakes the loop when it is back).
            guard alive else {
                loop.wait(timeout: configuration.pollInterval)
                continue
            }
            // A claim costs a transaction whatever it takes: under load it
            // waits until the writer has freed as many leases as this process
            // still holds, or for the turn interval, so that each claim takes
            // a batch; the queued deliveries keep the slots busy meanwhile.
            let now = ContinuousClock.now
            let written = writer.written
            let batchReady = moreToClaim || held == 0 || written - writtenAtClaim >= held || now - lastClaim >= Self.turnInterval
            guard batchReady else {
                loop.wait(timeout: lastClaim + Self.turnInterval - now)
                continue
            }
            lastClaim = now
            writtenAtClaim = written
            moreToClaim = false
            var claimed: [ClaimedDelivery] = []
            var failure: (any Error)?
            var request: DeliveryStore.ClaimRequest?
            // Requests in flight limit the claims, not leases held: queues
            // behind receivers that never answer must not stop the claims
            // that find other webhooks' deliveries.
            if snapshot.inFlight < configuration.maxInFlight {
                let limit = min(configuration.claimBatchSize, configuration.maxInFlight - snapshot.inFlight)
                let sweep = cameBackShort && now - lastSweep >= Self.sweepInterval
                if sweep { lastSweep = now }
                let claim = DeliveryStore.ClaimRequest(
                    owner: leaseOwner,
                    limit: limit,
                    perWebhookLimit: configuration.perWebhookConcurrency,
                    perWebhookPrefetch: snapshot.prefetch,
                    leaseDuration: configuration.leaseDuration,
                    queuedLeaseDuration: configuration.queuedLeaseDuration,
                    skipping: snapshot.fullWebhooks,
                    skippingUsers: snapshot.usersAtCap,
                    examine: snapshot.held + limit + Self.claimReadAhead,
                    sweep: sweep,
                    ownLeases: snapshot.heldPerWebhook.counts
                )
                request = claim
                // No later than the database's now(), so local lease ends are early, never late.
                let claimedAt = ContinuousClock.now
                do {
                    claimed = try store.claim(claim)
                } catch {
                    failure = error
                }
                for delivery in slots.withLock({ $0.admit(claimed, claimedAt: claimedAt, now: .now) }) {
                    send(delivery)
                }
            }

            var sleep = configuration.pollInterval
            if let failure {
                if backoff.failures == 0 {
                    logger.warning("webhook dispatcher cannot reach the database; retrying", metadata: ["error": "\(failure)"])
                }
                sleep = backoff.next()
            } else {
                if backoff.failures > 0 { logger.notice("webhook dispatcher reached the database again") }
                backoff.reset()
                cameBackShort = request.map { claimed.count < $0.limit } ?? false
                if let request, claimed.count == request.limit {
                    moreToClaim = true
                    sleep = .zero
                } else if request != nil, let due = try? store.timeUntilNextDue() {
                    // Wakes for the next coalesced event on time even while
                    // requests are in flight; their ends wake the loop too.
                    sleep = min(sleep, due)
                }
                pruner.pruneIfDue(logger: logger) { batchSize in
                    try store.pruneEvents(olderThan: configuration.eventRetention, batchSize: batchSize)
                }
            }
            if sleep > .zero { loop.wait(timeout: sleep) }
        }
        drain()
    }

    /// Posts one delivery. Runs on the loop thread for what a claim starts
    /// and on the HTTP client's thread for what follows from a queue.
    private func send(_ delivery: ClaimedDelivery) {
        let attemptedAt = Date()
        let request: HTTPClientRequest
        do {
            request = try WebhookMessage.request(
                for: delivery,
                timestamp: attemptedAt.unitsSince1970(perSecond: 1),
                secrets: secrets,
                configuration: configuration
            )
        } catch {
            // Never sent unsigned: a secret that does not open (its key is
            // not configured) makes a failed attempt, retried on schedule.
            logger.error(
                "webhook signing secret cannot be decrypted",
                metadata: [
                    "webhook.id": delivery.webhookID.uuidString.lowercased(), "error": "\(error)",
                ])
            let failure = HTTPClientError(code: .invalidRequest, message: "the webhook's signing secret cannot be decrypted: \(error)")
            finish(delivery, attemptedAt: attemptedAt, elapsed: .zero, result: .failure(failure))
            return
        }
        let started = ContinuousClock.now
        client.execute(request) { [self] result in
            finish(delivery, attemptedAt: attemptedAt, elapsed: ContinuousClock.now - started, result: result)
        }
    }

    /// Frees the slot (starting the webhook's next queued delivery) and
    /// hands the attempt to the writer.
    private func finish(
        _ delivery: ClaimedDelivery, attemptedAt: Date, elapsed: Duration, result: Result<HTTPClientResponse, HTTPClientError>
    ) {
        if let next = slots.withLock({ $0.finish(webhook: delivery.webhookID, now: ContinuousClock.now) }) {
            send(next)
        }
        let attempt = FinishedAttempt(delivery: delivery, attemptedAt: attemptedAt, elapsed: elapsed, result: result)
        let completed = attempt.completed(policy: policy, now: Date())
        attempts?.increment(labels: ["result": completed.outcome.metricName])
        writer.submit(completed, key: completed.webhookID)
    }

    /// After the loop: starts nothing more, waits up to the grace period
    /// for attempts in flight, lets the writer write what finished and
    /// releases the leases of the rest.
    private func drain() {
        slots.withLock { $0.close() }
        let graceEnds = ContinuousClock.now + configuration.shutdownGracePeriod
        let deadline = stopDeadline.withLock { $0 }.map { min($0, graceEnds) } ?? graceEnds
        while slots.withLock({ $0.inFlightCount }) > 0 && ContinuousClock.now < deadline {
            loop.wait(timeout: .milliseconds(50))
        }
        writer.stop()
        do {
            let released = try store.releaseLeases(owner: leaseOwner)
            if released > 0 { logger.info("released unfinished deliveries", metadata: ["deliveries": String(released)]) }
        } catch {
            logger.warning("could not release delivery leases; they expire on their own", metadata: ["error": "\(error)"])
        }
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "tidings" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension CompletedAttempt.Outcome {
    var metricName: String {
        switch self {
        case .succeeded: "succeeded"
        case .retry: "retry"
        case .failed: "failed"
        case .gone: "gone"
        }
    }
}
