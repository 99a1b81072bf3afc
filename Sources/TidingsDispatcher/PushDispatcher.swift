import FoundationEssentials
import Synchronization
import TidingsCrypto
package import TidingsDomain
package import TidingsObservability
package import TidingsPostgres
import TidingsPush
package import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#endif

/// Sends direct pushes: claims due rows of `pushes` under a lease, sends
/// them through the push app's client (APNs or FCM, HTTP/2, many streams
/// on one connection per push app), writes results back in batches, removes
/// devices whose token is dead and schedules retries. The table is the
/// source of truth: the loop polls it, and NOTIFY on `tidings_pushes`
/// only wakes it sooner. A `LeaseHeartbeat` (holds: pushes) lets another
/// process free this one's leases promptly should it die, as for webhooks.
package final class PushDispatcher: Service {
    package let configuration: PushDispatcherConfiguration
    /// Names this process in `pushes.lease_owner`.
    package let leaseOwner: String

    private let pool: PostgresClient
    private let store: PushStore
    private let apps: PushAppStore
    private let secrets: StoredSecrets
    private let senders: PushSenders
    private let policy: RetryPolicy
    private let logger: Logger
    private let waker: NotificationWaker
    private let inFlight = Atomic<Int>(0)
    private let writer: WriteBehindQueue<UUID, PushAttemptResult>
    private let loop = WorkerLoop(name: "tidings.push")
    /// Set by `stop`: the drain waits for pushes in flight no later.
    private let stopDeadline = AdaptiveMutex<ContinuousClock.Instant?>(nil)
    private let heartbeat: LeaseHeartbeat
    private let outcomes: Counter?
    /// Encrypts and sends Web Push messages (~150-300 µs of CPU each, the
    /// ECDH of RFC 8291) beside the loop, one thread per core: on the loop
    /// thread they capped a burst at one core's worth, ~2,000 pushes/s.
    private let webPushWorkers: ThreadPool

    /// Creates the dispatcher on `pool` (`makePool` for the one a running
    /// Tidings uses) and `webPushWorkers`, which it stops when it stops;
    /// `listen` names the server whose notifications wake it.
    package init(
        configuration: PushDispatcherConfiguration, pool: PostgresClient, webPushWorkers: ThreadPool,
        listen: PostgresConfiguration, secrets: StoredSecrets, process: LeaseProcess = LeaseProcess(), logger: Logger,
        metrics: MetricsRegistry? = nil
    ) {
        self.configuration = configuration
        self.leaseOwner = "\(Self.hostName())/push-\(UUID().canonicalString.prefix(8))"
        self.pool = pool
        self.store = PushStore(database: pool)
        self.apps = PushAppStore(database: pool, secrets: secrets)
        self.secrets = secrets
        self.policy = RetryPolicy(schedule: configuration.retrySchedule)
        var logger = logger
        logger[metadataKey: "push_dispatcher"] = leaseOwner
        self.logger = logger
        self.senders = PushSenders(transport: configuration.transport, logger: logger)
        self.webPushWorkers = webPushWorkers
        self.heartbeat = LeaseHeartbeat(
            owner: leaseOwner, process: process, holds: .pushes, inFlightGrace: configuration.inFlightGrace, database: pool, logger: logger
        )
        self.waker = NotificationWaker(
            channel: PushStore.notificationChannel, what: "pushes", configuration: listen, loop: loop, logger: logger
        )
        let outcomes = metrics?.counter(
            "tidings_pushes_total", help: "Push attempts by platform, kind and outcome (delivered, retry, failed, device_gone).")
        self.outcomes = outcomes
        self.writer = .attempts(what: "push attempts", threadName: "tidings.push.write", logger: logger) {
            [store, leaseOwner, logger] batch in
            let removed = try store.complete(batch, owner: leaseOwner)
            if !removed.isEmpty {
                logger.info("removed devices whose push token is dead", metadata: ["devices": String(removed.count)])
            }
        }
        if let metrics {
            metrics.gauge("tidings_pushes_in_flight", help: "Pushes in flight in this process.")
                .observe { [weak self] in Double(self?.inFlight.load(ordering: .relaxed) ?? 0) }
        }
    }

    /// The pool a running Tidings gives its push dispatcher: its own, to
    /// the server `database` names.
    package static func makePool(database: PostgresConfiguration, logger: Logger) -> PostgresClient {
        var postgres = database
        // One for claims, one for the writer; the heartbeat borrows one.
        postgres.maxConnections = 2
        postgres.applicationName = "tidings-push"
        // Every statement planned for the table as it is: a generic plan
        // cached while `pushes` was nearly empty (sequential scans, one per
        // candidate in the claim) stays after a burst fills it, and one
        // claim then ran for over ten minutes on 50,000 pushes.
        postgres.sessionSettings["plan_cache_mode"] = "force_custom_plan"
        return PostgresClient(configuration: postgres, logger: logger)
    }

    /// The threads a running Tidings gives it to encrypt Web Push messages.
    package static func makeWebPushWorkers(configuration: PushDispatcherConfiguration) throws -> ThreadPool {
        try ThreadPool(name: "tidings.webpush", size: configuration.webPushThreads)
    }

    package func start() {
        heartbeat.start(onAlive: { [weak self] _ in self?.loop.wake() }, onReaped: { [weak self] in self?.releaseAfterReap() })
        waker.start()
        writer.start { [loop] _ in loop.wake() }
        loop.start { [self] in run() }
        logger.info("push dispatcher started")
    }

    /// Stops claiming, gives pushes in flight the grace period (no later
    /// than `deadline`), writes what finished, releases the rest. Safe to
    /// call more than once.
    package func stop(deadline: ContinuousClock.Instant) {
        stopDeadline.withLock { $0 = deadline }
        if loop.stop() { logger.info("push dispatcher stopped") }
        waker.stop()
        webPushWorkers.stop()
        senders.stop()
        heartbeat.stop()
        pool.stop()
    }

    private func releaseAfterReap() {
        do {
            try store.releaseLeases(owner: leaseOwner)
        } catch {
            logger.warning("could not release push leases; they expire on their own", metadata: ["error": "\(error)"])
        }
    }

    // MARK: The loop

    private func run() {
        var backoff = Backoff()
        var pruner = RetentionPruner("pushes", interval: configuration.pruneInterval)
        while !loop.isStopping {
            guard let startBy = heartbeat.startBy, startBy > .now else {
                loop.wait(timeout: configuration.pollInterval)
                continue
            }
            let room = configuration.maxInFlight - inFlight.load(ordering: .acquiring)
            let limit = min(configuration.claimBatchSize, room)
            var sleep = configuration.pollInterval
            do {
                let claimed = try store.claim(owner: leaseOwner, limit: limit, leaseDuration: configuration.leaseDuration)
                if backoff.failures > 0 { logger.notice("push dispatcher reached the database again") }
                backoff.reset()
                for push in claimed { send(push) }
                if limit > 0 && claimed.count == limit {
                    sleep = .zero
                } else if limit > 0, let due = try store.timeUntilNextDue() {
                    // Wakes for the next coalesced badge on time even while
                    // pushes are in flight; their ends wake the loop too.
                    sleep = min(sleep, due)
                }
                pruner.pruneIfDue(logger: logger) { batchSize in
                    try store.pruneFinished(olderThan: configuration.logRetention, batchSize: batchSize)
                }
            } catch {
                if backoff.failures == 0 {
                    logger.warning("push dispatcher cannot reach the database; retrying", metadata: ["error": "\(error)"])
                }
                sleep = backoff.next()
            }
            if sleep > .zero { loop.wait(timeout: sleep) }
        }
        drain()
    }

    /// Sends one push through its app's client; the result goes to the
    /// writer from the HTTP client's thread.
    private func send(_ push: ClaimedPush) {
        let sender: PushSenders.Sender
        do {
            sender = try senders.sender(for: push, apps: apps)
        } catch {
            logger.error(
                "push app credentials cannot be used", metadata: ["push_app.id": push.pushAppID.canonicalString, "error": "\(error)"])
            finish(push, .failed(reason: "the push app's credentials cannot be used: \(error)"))
            return
        }
        inFlight.add(1, ordering: .acquiringAndReleasing)
        let done: @Sendable (PushResult) -> Void = { [self] result in
            // The sender, and so its connection, stays open until answered.
            withExtendedLifetime(sender) {}
            inFlight.subtract(1, ordering: .acquiringAndReleasing)
            finish(push, result)
            loop.wake()
        }
        switch sender {
        case .apns(let client): client.send(PushMessages.apns(push), completion: done)
        case .fcm(let client): client.send(PushMessages.fcm(push), completion: done)
        case .webPush(let client):
            webPushWorkers.submit { [self] in
                switch webPushKeys(of: push) {
                case .opened(let p256dh, let auth):
                    client.send(PushMessages.web(push, userAgentPublicKey: p256dh, authSecret: auth), completion: done)
                case .unusable(let result):
                    done(result)
                }
            }
        }
    }

    /// A web device's subscription keys, `auth` opened. A device without
    /// them (a race with a registration that cleared them) or whose keys do
    /// not decode can never be pushed: it is gone. A secret that does not
    /// open (a key missing from the keyring) fails the push and keeps it.
    private enum WebPushKeys {
        case opened(p256dh: [UInt8], auth: [UInt8])
        case unusable(PushResult)
    }

    private func webPushKeys(of push: ClaimedPush) -> WebPushKeys {
        guard let p256dhText = push.webPushP256dh, let sealed = push.webPushSealedAuth else {
            return .unusable(.deviceGone(reason: "Web Push: the web device has no push subscription"))
        }
        let authText: String
        do {
            authText = try secrets.openWebPushAuth(sealed)
        } catch {
            logger.error(
                "a web device's push secret does not open", metadata: ["device.id": push.deviceID.canonicalString, "error": "\(error)"])
            return .unusable(.failed(reason: "Web Push: the subscription's auth secret does not open with the configured keys"))
        }
        guard let p256dh = Base64.decode(p256dhText), let auth = Base64.decode(authText) else {
            return .unusable(.deviceGone(reason: "Web Push: the subscription's keys are not base64url"))
        }
        return .opened(p256dh: p256dh, auth: auth)
    }

    private func finish(_ push: ClaimedPush, _ result: PushResult) {
        let outcome: PushAttemptResult.Outcome
        switch result {
        case .delivered(let providerID): outcome = .sent(providerID: providerID)
        case .deviceGone(let reason): outcome = .deviceGone(reason: reason)
        case .failed(let reason): outcome = .failed(reason: reason)
        case .retry(let retryAfter, let reason):
            if let delay = policy.retryDelay(attemptsMade: push.attemptCount, retryAfter: retryAfter) {
                outcome = .retry(after: delay, reason: reason)
            } else {
                outcome = .failed(reason: "gave up after \(push.attemptCount + 1) attempts: \(reason)")
            }
        }
        // Labelled by what happens to the push: a retry out of attempts counts as failed.
        outcomes?.increment(labels: ["platform": push.platform.rawValue, "kind": push.kind.rawValue, "outcome": Self.metricLabel(outcome)])
        writer.submit(PushAttemptResult(pushID: push.id, deviceID: push.deviceID, outcome: outcome), key: push.deviceID)
    }

    private static func metricLabel(_ outcome: PushAttemptResult.Outcome) -> String {
        switch outcome {
        case .sent: "delivered"
        case .retry: "retry"
        case .failed: "failed"
        case .deviceGone: "device_gone"
        }
    }

    /// After the loop: waits up to the grace period for pushes in flight,
    /// lets the writer write what finished and releases the rest.
    private func drain() {
        let graceEnds = ContinuousClock.now + configuration.shutdownGracePeriod
        let deadline = stopDeadline.withLock { $0 }.map { min($0, graceEnds) } ?? graceEnds
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            loop.wait(timeout: .milliseconds(50))
        }
        writer.stop()
        do {
            let released = try store.releaseLeases(owner: leaseOwner)
            if released > 0 { logger.info("released unfinished pushes", metadata: ["pushes": String(released)]) }
        } catch {
            logger.warning("could not release push leases; they expire on their own", metadata: ["error": "\(error)"])
        }
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "tidings" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
