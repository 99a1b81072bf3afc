import TidingsSynchronization

/// Keeps a LISTEN session open on a thread of its own: opens a
/// `PostgresListener`, hands every batch of notifications to `received`,
/// and when the session cannot be opened or is lost, reports it to `lost`
/// and tries again after a doubling delay (250 ms up to 5 s). `listening`
/// runs each time a session is (again) listening; notifications sent while
/// none was are gone, so callers re-check their state there.
package final class PostgresNotificationLoop: Service {
    /// How often the thread looks at the stop flag while nothing arrives.
    private static let waitSlice: Duration = .milliseconds(250)
    private static let firstRetryDelay: Duration = .milliseconds(250)
    private static let longestRetryDelay: Duration = .seconds(5)

    package struct Handlers: Sendable {
        package var listening: @Sendable () -> Void
        package var received: @Sendable ([PostgresNotification]) -> Void
        package var lost: @Sendable (PostgresError) -> Void

        package init(
            listening: @escaping @Sendable () -> Void,
            received: @escaping @Sendable ([PostgresNotification]) -> Void,
            lost: @escaping @Sendable (PostgresError) -> Void
        ) {
            self.listening = listening
            self.received = received
            self.lost = lost
        }
    }

    private let configuration: PostgresConfiguration
    private let channels: [String]
    private let handlers: Handlers
    private let loop: WorkerLoop

    package init(configuration: PostgresConfiguration, channels: [String], threadName: String, handlers: Handlers) {
        self.configuration = configuration
        self.channels = channels
        self.loop = WorkerLoop(name: threadName)
        self.handlers = handlers
    }

    package func start() {
        loop.start { [self] in run() }
    }

    /// Returns once the thread has ended (within one wait slice).
    package func stop(deadline: ContinuousClock.Instant) {
        loop.stop()
    }

    private var isStopping: Bool {
        loop.isStopping
    }

    private func run() {
        var retryDelay = Self.firstRetryDelay
        while !isStopping {
            do {
                let listener = try PostgresListener(configuration: configuration, channels: channels)
                handlers.listening()
                retryDelay = Self.firstRetryDelay
                while !isStopping {
                    let notifications = try listener.wait(timeout: Self.waitSlice)
                    if !notifications.isEmpty { handlers.received(notifications) }
                }
            } catch {
                handlers.lost(error)
                sleep(retryDelay)
                retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
            }
        }
    }

    /// Waits out a retry delay, or until `stop`.
    private func sleep(_ duration: Duration) {
        loop.wait(timeout: duration)
    }
}
