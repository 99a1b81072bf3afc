import Synchronization
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// LISTENs on one channel (`tidings_deliveries`, `tidings_pushes`) and
/// wakes its dispatcher on every notification. Losing the session loses
/// nothing: the dispatcher polls anyway, and it is woken whenever a session
/// listens (again) to catch up. `what` names the work in log lines.
final class NotificationWaker: Service {
    private let loop: PostgresNotificationLoop

    init(channel: String, what: String, configuration: PostgresConfiguration, loop dispatcher: WorkerLoop, logger: Logger) {
        // Warn once per outage, not on every retry.
        let failing = Atomic(false)
        loop = PostgresNotificationLoop(
            configuration: configuration,
            channels: [channel],
            threadName: "tidings.listen.\(what)",
            handlers: .init(
                listening: {
                    if failing.exchange(false, ordering: .acquiringAndReleasing) {
                        logger.notice("listening for \(what) again")
                    }
                    dispatcher.wake()
                },
                received: { _ in dispatcher.wake() },
                lost: { error in
                    if !failing.exchange(true, ordering: .acquiringAndReleasing) {
                        logger.warning("cannot listen for \(what); polling only", metadata: ["error": error.description])
                    }
                }
            )
        )
    }

    func start() {
        loop.start()
    }

    func stop(deadline: ContinuousClock.Instant) {
        loop.stop()
    }
}
