import Foundation
package import TidingsObservability
package import TidingsPostgres
import TidingsSynchronization

/// Keeps one lease owner's row in `lease_owners` beating, on a thread of
/// its own, and reaps dead owners' leases on every beat: those of other
/// processes (`LeaseProcess`). It borrows a
/// connection from the owner's pool for each beat (a few milliseconds'
/// wait for one is nothing against the 3 s a beat is good for; no
/// connection of its own, so a process needs no more than before). The first beat
/// registers the owner and at once frees what owners dead by then held,
/// so a process that starts after a crash takes the dead one's work as
/// soon as it may.
///
/// The engine that owns the leases learns through `onAlive` until when it
/// may start work (`LeaseLiveness.startBy`), and through `onReaped` that
/// its row was reaped while it lived (a stall longer than its `deadAfter`):
/// its leases were freed and may already be someone else's, so it must
/// forget what it holds but has not started. The owner registers again
/// afterwards. Each beat also counts the live owners of the same kind,
/// and `onOwners` hears when that count changes (`LiveOwners`).
package final class LeaseHeartbeat: Sendable {
    package let owner: String
    private let process: LeaseProcess
    private let holds: LeaseOwnerStore.Holds
    private let store: LeaseOwnerStore
    private let logger: Logger
    private let liveness: AdaptiveMutex<LeaseLiveness>
    private let loop: WorkerLoop

    /// `inFlightGrace` is the longest work the owner started while alive
    /// may still run; `process` is shared by the owners of this process.
    /// `database` must stay open until `stop` returns.
    package init(
        owner: String, process: LeaseProcess, holds: LeaseOwnerStore.Holds, inFlightGrace: Duration, database: PostgresClient,
        logger: Logger
    ) {
        self.owner = owner
        self.process = process
        self.holds = holds
        self.store = LeaseOwnerStore(database: database)
        self.logger = logger
        self.liveness = AdaptiveMutex(LeaseLiveness(inFlightGrace: inFlightGrace))
        self.loop = WorkerLoop(name: "tidings.heartbeat.\(holds.rawValue)")
    }

    /// Until when the owner may start work; nil while it may not.
    package var startBy: ContinuousClock.Instant? {
        liveness.withLock { $0.startBy }
    }

    package var deadAfter: Duration {
        liveness.withLock { $0.deadAfter }
    }

    /// Starts beating; `onAlive`, `onReaped` and `onOwners` run on the
    /// heartbeat's thread.
    package func start(
        onAlive: @escaping @Sendable (ContinuousClock.Instant) -> Void = { _ in },
        onReaped: @escaping @Sendable () -> Void = {},
        onOwners: @escaping @Sendable (LiveOwners) -> Void = { _ in }
    ) {
        loop.start { [self] in run(onAlive: onAlive, onReaped: onReaped, onOwners: onOwners) }
    }

    /// Stops beating and deletes the owner's row: call after the owner has
    /// released its leases. When it could not (`leasesReleased` false) the
    /// row stays, goes stale, and whoever reaps it frees them. Safe to call
    /// more than once.
    package func stop(leasesReleased: Bool = true) {
        guard loop.stop() else { return }
        guard leasesReleased else { return }
        do {
            try store.unregister(owner: owner)
        } catch {
            logger.warning("could not remove the lease owner's row; it is reaped when it goes stale", metadata: ["error": "\(error)"])
        }
    }

    private func run(
        onAlive: @Sendable (ContinuousClock.Instant) -> Void,
        onReaped: @Sendable () -> Void,
        onOwners: @Sendable (LiveOwners) -> Void
    ) {
        var registered = false
        var owners = LiveOwners(count: 1)
        var failing = false
        let deadAfter = liveness.withLock { $0.deadAfter }
        while !loop.isStopping {
            let sentAt = ContinuousClock.now
            do {
                let counted: LiveOwners
                if registered {
                    guard let beaten = try store.beat(owner: owner, holds: holds) else {
                        registered = false
                        liveness.withLock { $0.reaped() }
                        logger.warning(
                            "this process's leases were freed by another after its heartbeat stalled; it forgets what it had not started",
                            metadata: [
                                "lease.owner": owner
                            ])
                        onReaped()
                        continue
                    }
                    counted = beaten
                } else {
                    counted = try store.register(owner: owner, holds: holds, deadAfter: deadAfter, process: process)
                    registered = true
                }
                if counted != owners {
                    logger.notice(
                        "lease owners of this kind changed; per-host caps are shared among them",
                        metadata: [
                            "lease.holds": holds.rawValue,
                            "lease.owners_before": String(owners.count),
                            "lease.owners": String(counted.count),
                        ])
                    owners = counted
                    onOwners(counted)
                }
                let startBy = liveness.withLock { liveness in
                    liveness.confirmed(sentAt: sentAt)
                    return liveness.startBy
                }
                // Reaped first: a starting owner's first claim then sees the
                // dead owners' leases free, and the owner's own statements do
                // not run beside the reap (which would open a second
                // connection in a pool that one serves).
                var reapFailure: (any Error)?
                do {
                    let reaped = try store.reapDead(sparing: process)
                    if !reaped.owners.isEmpty {
                        logger.notice(
                            "freed the leases of dead processes",
                            metadata: [
                                "lease.owners": reaped.owners.joined(separator: ","),
                                "deliveries": String(reaped.deliveries),
                                "targets": String(reaped.targets),
                            ])
                    }
                } catch {
                    reapFailure = error
                }
                // The beat counts whether or not the reap went through.
                if let startBy { onAlive(startBy) }
                if let reapFailure { throw reapFailure }
                if failing { logger.notice("lease heartbeat reached the database again") }
                failing = false
            } catch {
                if !failing {
                    logger.warning(
                        "lease heartbeat cannot reach the database; work pauses once the last beat is stale",
                        metadata: ["error": "\(error)"])
                }
                failing = true
            }
            let next = sentAt + LeaseLiveness.beatInterval
            let wait = max(next - ContinuousClock.now, .zero)
            loop.wait(timeout: wait)
        }
    }
}
