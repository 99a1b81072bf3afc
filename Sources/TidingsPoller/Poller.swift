package import Foundation
package import TidingsDomain
import TidingsHTTPClient
package import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// The change-detection engine: a scheduler thread takes due targets in
/// batches: the ones this poller holds from its last check of them as
/// they come up on its `HeldSchedule` (checked from the copy its last quiet
/// write kept while no end of its hold was heard, `HoldEndListener`, or
/// else read by id, `CheckStore.readHeld`), and due ones
/// nobody holds from the database's walk, leased (`claimDue`,
/// FOR UPDATE SKIP LOCKED). Each is checked as a task (HTTP on the
/// client's libcurl driver thread, extraction and hashing on the task),
/// and results go to a `WriteBehindQueue` whose threads write them in
/// batches (`OutcomeWriter`), each result in its tenant's turn. At most
/// `concurrency` checks are in flight; a check frees its slot once its
/// result is queued for writing (its lease or hold still guards the
/// target until the write), so checking never waits for a commit. A
/// written target stays held by this poller (decision 0057, `TargetHolds`)
/// and scheduled from its memory (decision 0058) until it gives the hold
/// back, anything else writes the target or its watches, or shutdown
/// gives every hold back. The writer's backlog is bounded by `writeBacklogLimit`
/// results and `writeBacklogBytes` of content (`ContentBacklog`).
///
/// A `LeaseHeartbeat` keeps this poller's row in `lease_owners` beating;
/// should the process die, any other (or the next to start) frees its
/// targets' leases and holds a few seconds after its last beat (holds
/// never run out by themselves, and leases only after `lease`). A live
/// poller whose heartbeat stalled that long may
/// find a target checked by another meanwhile: its own result is then not
/// written (result writes need the lease), so nothing is recorded twice.
package final class Poller: TargetCheckRunner, Service {
    /// How long after a poller's last beat its leases are freed, beyond
    /// the staleness itself: nothing a poller starts needs its lease to be
    /// exclusive, only its result write, which checks the lease.
    static let inFlightGrace: Duration = .seconds(2)
    /// When a held target found in flight here (a check asked for through
    /// the API) is looked at again, should that check not hold it anew.
    static let inFlightRecheck: Duration = .seconds(1)
    /// Abandoned extractions (past their time limit, see `TargetChecker`)
    /// that get a thread started in their place, per extraction thread.
    /// Each holds a response body (up to the 5 MiB cap) and its parsed
    /// document (up to 100,000 nodes) until it ends, tens of MB at most,
    /// and runs at nice 19, so more would buy little: past this a tenant
    /// with that many runaways in flight costs the pool a thread each until
    /// one ends, rather than the process its memory.
    static let abandonedExtractionsPerThread = 4

    private struct State {
        var inFlight: Set<UUID> = []
        /// Scheduled checks in flight per user they are charged to, and the
        /// user each target's check is charged to.
        var inFlightByUser = Tally<UUID>()
        var chargedUser: [UUID: UUID] = [:]
        var isStopping = false

        /// Users at their share: targets only they watch wait.
        func saturatedUsers(limit: Int) -> [UUID] {
            inFlightByUser.keys(atLeast: limit)
        }

        enum Start {
            case started
            /// Its user is at their share: the target waits.
            case overShare
            /// A held target whose check is still in flight here.
            case inFlight
        }

        /// Takes the target in flight, charged to the watcher with the
        /// fewest checks in flight (a target a tenant shares with others does
        /// not count against whoever is busiest); `overShare` when even that
        /// one is at `limit`, as a claim of many targets of one user can be.
        mutating func start(_ target: ClaimedTarget, limit: Int) -> Start {
            guard !inFlight.contains(target.id) else { return .inFlight }
            let user = target.watches.map(\.userID).min { inFlightByUser[$0] < inFlightByUser[$1] }
            if let user {
                guard inFlightByUser[user] < limit else { return .overShare }
                inFlightByUser.add(user)
                chargedUser[target.id] = user
            }
            inFlight.insert(target.id)
            return .started
        }

        /// Ends the target's check; whether that gives the scheduler
        /// something to do: the free slots just reached `lowWater` (the
        /// fewest it starts a claim for), the user charged was at their
        /// share `userLimit`, or the poller is stopping. Waking it on every
        /// other finish would cost a context switch per check for nothing.
        mutating func finish(_ targetID: UUID, concurrency: Int, lowWater: Int, userLimit: Int) -> Bool {
            inFlight.remove(targetID)
            var userHadRoomAgain = false
            if let user = chargedUser.removeValue(forKey: targetID) {
                userHadRoomAgain = inFlightByUser[user] == userLimit
                inFlightByUser.remove(user)
            }
            return isStopping || userHadRoomAgain || concurrency - inFlight.count == lowWater
        }
    }

    package let owner: String
    private let configuration: PollerConfiguration
    private let pool: PostgresClient
    private let store: CheckStore
    private let client: HTTPClient
    private let extraction: ThreadPool
    private let limiter: HostLimiter
    private let checker: TargetChecker
    private let writer: OutcomeWriter
    private let results: WriteBehindQueue<UUID?, CheckOutcome>
    private let logger: Logger
    private let metrics: PollerMetrics
    private let state = AdaptiveMutex(State())
    /// Wakes the scheduler (enough slots freed, a user back under their
    /// share, a batch written) or, once the scheduler has stopped,
    /// `shutdown` waiting for checks in flight.
    private let capacity = WakeSignal()
    private let scheduler = AdaptiveMutex<JoinableThread?>(nil)
    private let heartbeat: LeaseHeartbeat
    private let holdEnds: HoldEndListener

    /// Creates the poller on `parts` (`PollerParts.make` for the ones a
    /// running Tidings uses), which it stops when it stops. `process` is
    /// the lease process it shares with the other engines of its process
    /// (by default it is alone in one).
    package init(
        configuration: PollerConfiguration,
        parts: PollerParts,
        secrets: StoredSecrets,
        process: LeaseProcess = LeaseProcess(),
        logger: Logger,
        metrics: MetricsRegistry
    ) {
        self.owner = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.configuration = configuration
        self.pool = parts.pool
        self.store = CheckStore(database: pool, failureThreshold: configuration.failureThreshold)
        self.client = parts.client
        let extraction = parts.extraction
        self.extraction = extraction
        self.limiter = HostLimiter(
            concurrency: configuration.hostConcurrency,
            minimumGap: configuration.hostMinimumGap,
            longestHold: configuration.maximumRetryAfter
        )
        self.logger = logger
        self.metrics = PollerMetrics(registry: metrics)
        self.metrics.abandonedExtractionThreads.observe { [weak extraction] in Double(extraction?.abandonedThreadCount ?? 0) }
        self.metrics.hostConcurrency.observe { [limiter] in Double(limiter.concurrency) }
        self.checker = TargetChecker(
            client: client,
            extraction: extraction,
            logger: logger,
            metrics: self.metrics,
            limiter: limiter,
            configuration: configuration,
            schedule: CheckSchedule(jitter: configuration.scheduleJitter, maximumBackoff: configuration.maximumBackoff),
            secrets: secrets
        )
        let writer = OutcomeWriter(store: store, owner: owner, configuration: configuration, logger: logger, metrics: self.metrics)
        self.writer = writer
        var queue = WriteBehindQueue<UUID?, CheckOutcome>.Configuration(name: "tidings.writer")
        queue.writers = configuration.writerCount
        queue.batchSize = configuration.writeBatchSize
        queue.batchDelay = configuration.writeBatchDelay
        // The writer logs and counts its own failures: a result it could
        // not write is checked again once its lease runs out.
        self.results = WriteBehindQueue(queue) { batch in
            writer.write(batch)
            return .written
        }
        self.heartbeat = LeaseHeartbeat(
            owner: owner, process: process, holds: .targets, inFlightGrace: Self.inFlightGrace, database: pool, logger: logger
        )
        self.holdEnds = HoldEndListener(schedule: writer.heldSchedule, configuration: pool.configuration, logger: logger)
    }

    /// Requests in flight this process allows per host: its share of
    /// `hostConcurrency` among the live pollers.
    package var hostConcurrency: Int {
        limiter.concurrency
    }

    /// Starts the writer and, unless `concurrency` is 0, the scheduler.
    package func start() {
        heartbeat.start(onOwners: { [limiter, writer] owners in
            limiter.share(among: owners)
            writer.share(among: owners)
        })
        results.start { [weak self] _ in self?.wakeScheduler() }
        guard configuration.concurrency > 0 else { return }
        holdEnds.start()
        let thread = JoinableThread.start(name: "tidings.scheduler") { [self] in runScheduler() }
        scheduler.withLock { $0 = thread }
        logger.notice(
            "poller started",
            metadata: [
                "poller.owner": owner,
                "poller.concurrency": String(configuration.concurrency),
                "poller.host_concurrency": String(configuration.hostConcurrency),
            ])
    }

    /// Checks one target now, whether due or not, and waits for the result
    /// to be written. Nil when another check of the target is running
    /// (here, or under a lease elsewhere).
    /// Blocks the calling thread (an HTTP worker), never a task, for at
    /// most `checkNowTimeout`: past it this throws `CheckNowTimeout` and
    /// the check goes on as a scheduled one (tracked in flight, its result
    /// queued for the writer).
    package func checkNow(targetID: UUID) throws -> [UUID: WatchCheckResult]? {
        // In flight here from claim to result: the scheduler may have read
        // the target from this poller's hold just before the claim below.
        guard state.withLock({ $0.inFlight.insert(targetID).inserted }) else { return nil }
        var handedToTask = false
        defer { if !handedToTask { finished(targetID) } }
        guard let target = try store.claim(targetID: targetID, owner: owner, lease: configuration.lease) else { return nil }
        let checker = self.checker
        let result = Mailbox<CheckOutcome>()
        // One check, owned by this caller until it leaves; not a loop.
        Task { [self] in
            let outcome = await checker.check(target)
            // The caller left: the task queues the result itself.
            guard !result.deliver(outcome) else { return }
            writer.contentBacklog.add(outcome)
            results.submit(outcome, key: outcome.target.tenant)
            finished(target.id)
        }
        var received = result.wait(timeout: configuration.checkNowTimeout)
        if received == nil {
            received = result.abandon()
            guard received != nil else {
                // From here the task owns the check like `launch` does.
                handedToTask = true
                throw CheckNowTimeout(timeout: configuration.checkNowTimeout)
            }
        }
        guard let outcome = received else { return [:] }
        if outcome.abandoned {
            try store.release(owner: owner, targetIDs: [targetID])
            return [:]
        }
        writer.contentBacklog.add(outcome)
        return writer.write([outcome])
    }

    /// Stops claiming, gives in-flight checks until `deadline` to finish
    /// and be written, releases the leases of the rest, and stops the HTTP
    /// client.
    package func stop(deadline: ContinuousClock.Instant) {
        let alreadyStopping = state.withLock { state in
            defer { state.isStopping = true }
            return state.isStopping
        }
        guard !alreadyStopping else { return }
        wakeScheduler()
        scheduler.withLock { $0 }?.join()
        holdEnds.stop(deadline: deadline)

        while !state.withLock({ $0.inFlight.isEmpty }), ContinuousClock.now < deadline {
            capacity.wait(timeout: ContinuousClock.now.duration(to: deadline))
        }

        // Checks still running will end with `.shutdown` and be dropped;
        // their leases go back with every hold.
        let unfinished = state.withLock { $0.inFlight.count }
        limiter.close()
        client.stop()
        extraction.stop()
        results.stop()
        var released: Int?
        writer.heldSchedule.withLock { $0.removeAll() }
        do {
            released = try store.releaseAll(owner: owner)
        } catch {
            logger.error(
                "could not release leases and holds; they are freed once this poller's heartbeat row goes stale",
                metadata: ["error": "\(error)"])
        }
        // Without the release the row must stay: reaping it frees the
        // holds, which never run out by themselves (decision 0058).
        heartbeat.stop(leasesReleased: released != nil)
        pool.stop()
        logger.notice(
            "poller stopped",
            metadata: ["poller.unfinished_checks": String(unfinished), "poller.released_targets": released.map(String.init) ?? "none"])
    }

    // MARK: Scheduler

    /// The fewest free slots the scheduler claims for: fewer would be a
    /// round trip to the database for a handful of targets.
    private var lowWater: Int {
        max(configuration.concurrency / 8, 1)
    }

    private func runScheduler() {
        let lowWater = self.lowWater
        // The walk of the due index starts over at least this often, so a
        // target passed over (locked by another replica, released, lease
        // expired) waits no longer even while the due targets never run out.
        let restartEvery = Duration.seconds(1)
        var cursor = ClaimCursor.start
        var walkStarted = ContinuousClock.now
        while true {
            let (stopping, free, saturated) = state.withLock {
                ($0.isStopping, configuration.concurrency - $0.inFlight.count, $0.saturatedUsers(limit: configuration.userConcurrency))
            }
            if stopping { return }
            guard free >= lowWater, results.backlog < configuration.writeBacklogLimit,
                writer.contentBacklog.bytes < configuration.writeBacklogBytes
            else {
                waitForCapacity(timeout: configuration.idlePollInterval)
                continue
            }
            let claimed: [ClaimedTarget]
            do {
                if cursor == .start || ContinuousClock.now - walkStarted >= restartEvery {
                    cursor = .start
                    walkStarted = .now
                }
                claimed = try takeDue(limit: min(free, configuration.claimBatchSize), saturated: saturated, cursor: &cursor)
            } catch {
                cursor = .start
                logger.error("could not claim due targets", metadata: ["error": "\(error)"])
                waitForCapacity(timeout: .seconds(1))
                continue
            }
            if claimed.isEmpty {
                waitForCapacity(timeout: configuration.idlePollInterval)
                continue
            }
            var heldOverShare: [ClaimedTarget] = []
            var heldInFlight: [ClaimedTarget] = []
            let (started, overShare) = state.withLock { state in
                var started: [ClaimedTarget] = []
                var overShare: [UUID] = []
                for target in claimed {
                    switch state.start(target, limit: configuration.userConcurrency) {
                    case .started: started.append(target)
                    case .overShare where !target.isHeld: overShare.append(target.id)
                    // A held one stays held and due, taken again once its
                    // user has room.
                    case .overShare: heldOverShare.append(target)
                    // Checked right now on request: its result holds it
                    // again; should that check fail to claim it, this
                    // keeps it on the schedule (the read drops it if not).
                    case .inFlight where target.isHeld: heldInFlight.append(target)
                    case .inFlight: break
                    }
                }
                return (started, overShare)
            }
            if !heldOverShare.isEmpty || !heldInFlight.isEmpty {
                let now = Date()
                let recheck = now.addingTimeInterval(Self.inFlightRecheck.inSeconds)
                writer.heldSchedule.withLock { schedule in
                    for target in heldOverShare {
                        schedule.hold(target.id, due: now, users: target.watches.map(\.userID), copy: target)
                    }
                    for target in heldInFlight { schedule.hold(target.id, due: recheck, users: target.watches.map(\.userID)) }
                }
            }
            if !overShare.isEmpty {
                // Still due: claimed again once their user has room.
                do {
                    try store.release(owner: owner, targetIDs: overShare)
                } catch {
                    logger.warning(
                        "could not release targets past their user's share; their leases expire on their own",
                        metadata: ["error": "\(error)"])
                }
            }
            for target in started { launch(target) }
        }
    }

    /// Up to `limit` due targets, held ones and the walk's taking turns by
    /// due time as one queue: held ones due fill the batch first; the walk
    /// claims targets nobody holds that are due no later than the last of
    /// them (every due one when the batch has room), which take the places
    /// of the latest held ones. Held targets are checked from the copy
    /// their last quiet write kept, or read, not written: the read drops
    /// any no longer held here, and those whose next check was put off go
    /// back on the schedule at its new time. Throws only when nothing was
    /// leased.
    private func takeDue(limit: Int, saturated: [UUID], cursor: inout ClaimCursor) throws -> [ClaimedTarget] {
        var held = writer.heldSchedule.withLock { $0.takeDue(now: Date(), limit: limit, saturated: Set(saturated)) }
        let leased: [ClaimedTarget]
        do {
            leased = try store.claimDue(
                owner: owner, limit: limit, lease: configuration.lease, excludingUsers: saturated,
                dueBy: held.count < limit ? nil : held.last?.due, cursor: &cursor
            )
        } catch {
            writer.heldSchedule.withLock { $0.putBack(held) }
            throw error
        }
        let kept = max(limit - leased.count, 0)
        if held.count > kept {
            let late = held[kept...]
            writer.heldSchedule.withLock { $0.putBack(late) }
            held.removeSubrange(kept...)
        }
        let copies = held.compactMap(\.copy)
        let unread = held.filter { $0.copy == nil }
        if !copies.isEmpty { metrics.heldChecks.increment(by: Double(copies.count), labels: ["source": "copy"]) }
        guard !unread.isEmpty else { return leased + copies }
        do {
            let read = try store.readHeld(owner: owner, ids: unread.map(\.id))
            if !read.due.isEmpty { metrics.heldChecks.increment(by: Double(read.due.count), labels: ["source": "read"]) }
            if !read.later.isEmpty {
                writer.heldSchedule.withLock { schedule in
                    for target in read.later { schedule.hold(target.id, due: target.nextCheckAt, users: []) }
                }
            }
            return leased + copies + read.due
        } catch {
            // Still held here: taken again on the scheduler's next turn.
            writer.heldSchedule.withLock { $0.putBack(unread) }
            logger.error("could not read held targets", metadata: ["error": "\(error)"])
            return leased + copies
        }
    }

    /// A check task is owned by the in-flight set until its result is
    /// queued: shutdown waits for it (the writer then writes what is
    /// queued), or releases its lease and drops its result.
    private func launch(_ target: ClaimedTarget) {
        let checker = self.checker
        let results = self.results
        let started = ContinuousClock.now
        Task { [self] in
            let outcome = await checker.check(target)
            metrics.checkDuration.observe((ContinuousClock.now - started).inSeconds)
            writer.contentBacklog.add(outcome)
            results.submit(outcome, key: outcome.target.tenant)
            finished(target.id)
        }
    }

    private func finished(_ targetID: UUID) {
        let (concurrency, lowWater, userLimit) = (configuration.concurrency, lowWater, configuration.userConcurrency)
        if state.withLock({ $0.finish(targetID, concurrency: concurrency, lowWater: lowWater, userLimit: userLimit) }) {
            wakeScheduler()
        }
    }

    private func wakeScheduler() {
        capacity.wake()
    }

    private func waitForCapacity(timeout: Duration) {
        capacity.wait(timeout: timeout)
    }
}
