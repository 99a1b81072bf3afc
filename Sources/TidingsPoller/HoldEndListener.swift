import FoundationEssentials
import Synchronization
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// Keeps a LISTEN session on `tidings_holds_ended`
/// (`schema/functions/targets_announce_hold_end.sql`) and drops this
/// poller's copy of every target whose hold ends, so its next check here
/// reads the row instead of fetching a target that another poller may
/// have taken (decision 0064). Copies are kept only while the session is
/// up: a lost session drops them all until a new one listens, so an end
/// is never missed, only the copies skipped for a while.
final class HoldEndListener: Service {
    static let channel = "tidings_holds_ended"

    private let schedule: AdaptiveMutex<HeldSchedule>
    private let loop: PostgresNotificationLoop

    init(schedule: AdaptiveMutex<HeldSchedule>, configuration: PostgresConfiguration, logger: Logger) {
        self.schedule = schedule
        // Warn once per outage, not on every retry.
        let failing = Atomic(false)
        loop = PostgresNotificationLoop(
            configuration: configuration,
            channels: [Self.channel],
            threadName: "tidings.listen.holds",
            handlers: .init(
                listening: {
                    if failing.exchange(false, ordering: .acquiringAndReleasing) {
                        logger.notice("hearing of ended holds again; checking held targets from copies")
                    }
                    schedule.withLock { $0.keepCopies(true) }
                },
                received: { notifications in
                    let ids = notifications.map { UUID(uuidString: $0.payload) }
                    schedule.withLock { schedule in
                        // Unknown payload: drop every copy rather than guess.
                        if ids.contains(nil) {
                            schedule.dropCopies()
                        } else {
                            schedule.holdsEnded(ids.compactMap(\.self))
                        }
                    }
                },
                lost: { error in
                    schedule.withLock { $0.keepCopies(false) }
                    if !failing.exchange(true, ordering: .acquiringAndReleasing) {
                        logger.warning(
                            "cannot hear of ended holds; reading held targets before each check",
                            metadata: ["error": error.description])
                    }
                }
            )
        )
    }

    func start() {
        loop.start()
    }

    /// Returns once the listening thread has ended; copies are then off.
    func stop(deadline: ContinuousClock.Instant) {
        loop.stop(deadline: deadline)
        schedule.withLock { $0.keepCopies(false) }
    }
}
