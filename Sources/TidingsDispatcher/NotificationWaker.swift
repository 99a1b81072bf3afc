import Foundation
import Synchronization
import TidingsDomain
import TidingsObservability
import TidingsPostgres

/// LISTENs on `tidings_deliveries` over a dedicated connection and wakes
/// the dispatcher on every notification. Losing the connection loses
/// nothing: the dispatcher polls anyway, and it is woken after every
/// reconnect to catch up at once.
final class NotificationWaker: Sendable {
    /// How often the thread looks at the stop flag while nothing arrives.
    private static let waitSlice: Duration = .milliseconds(250)

    private let configuration: PostgresConfiguration
    private let signal: WakeSignal
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<WorkerThread?>(nil)

    init(configuration: PostgresConfiguration, signal: WakeSignal, logger: Logger) {
        self.configuration = configuration
        self.signal = signal
        self.logger = logger
    }

    func start() {
        thread.withLock { $0 = WorkerThread(name: "tidings.dispatcher.listen") { [self] in run() } }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        let running = thread.withLock { $0.take() }
        running?.join()
    }

    private func run() {
        var listener: PostgresListener?
        var backoff = Backoff()
        while !stopping.load(ordering: .acquiring) {
            guard let current = listener else {
                do {
                    listener = try PostgresListener(configuration: configuration, channels: [DeliveryStore.notificationChannel])
                    if backoff.failures > 0 { logger.notice("listening for deliveries again") }
                    backoff.reset()
                    signal.wake()
                } catch {
                    if backoff.failures == 0 {
                        logger.warning("cannot listen for deliveries; polling only", metadata: ["error": error.description])
                    }
                    sleep(backoff.next())
                }
                continue
            }
            do {
                if try !current.wait(timeout: Self.waitSlice).isEmpty {
                    signal.wake()
                }
            } catch {
                logger.warning("lost the notification connection", metadata: ["error": error.description])
                listener = nil
            }
        }
    }

    /// Sleeps in slices so that `stop` is not held up by a long backoff.
    private func sleep(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !stopping.load(ordering: .acquiring) && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
