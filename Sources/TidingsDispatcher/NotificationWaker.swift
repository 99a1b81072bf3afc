import Synchronization
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// LISTENs on `tidings_deliveries` and wakes the dispatcher on every
/// notification. Losing the session loses nothing: the dispatcher polls
/// anyway, and it is woken whenever a session listens (again) to catch up.
final class NotificationWaker: Sendable {
    private let loop: PostgresNotificationLoop

    init(configuration: PostgresConfiguration, loop dispatcher: WorkerLoop, logger: Logger) {
        // Warn once per outage, not on every retry.
        let failing = Atomic(false)
        loop = PostgresNotificationLoop(
            configuration: configuration,
            channels: [DeliveryStore.notificationChannel],
            threadName: "tidings.dispatcher.listen",
            handlers: .init(
                listening: {
                    if failing.exchange(false, ordering: .acquiringAndReleasing) {
                        logger.notice("listening for deliveries again")
                    }
                    dispatcher.wake()
                },
                received: { _ in dispatcher.wake() },
                lost: { error in
                    if !failing.exchange(true, ordering: .acquiringAndReleasing) {
                        logger.warning("cannot listen for deliveries; polling only", metadata: ["error": error.description])
                    }
                }
            )
        )
    }

    func start() {
        loop.start()
    }

    func stop() {
        loop.stop()
    }
}
