import Foundation
import Synchronization
import TidingsSynchronization

/// Keeps a LISTEN session open on a thread of its own: opens a
/// `PostgresListener`, hands every batch of notifications to `received`,
/// and when the session cannot be opened or is lost, reports it to `lost`
/// and tries again after a doubling delay (250 ms up to 5 s). `listening`
/// runs each time a session is (again) listening; notifications sent while
/// none was are gone, so callers re-check their state there.
public final class PostgresNotificationLoop: Sendable {
    /// How often the thread looks at the stop flag while nothing arrives.
    private static let waitSlice: Duration = .milliseconds(250)
    private static let firstRetryDelay: Duration = .milliseconds(250)
    private static let longestRetryDelay: Duration = .seconds(5)

    public struct Handlers: Sendable {
        public var listening: @Sendable () -> Void
        public var received: @Sendable ([PostgresNotification]) -> Void
        public var lost: @Sendable (PostgresError) -> Void

        public init(
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
    private let threadName: String
    private let handlers: Handlers
    private let stopping = Atomic(false)
    private let thread = Mutex<JoinableThread?>(nil)
    private let started = Atomic(false)

    public init(configuration: PostgresConfiguration, channels: [String], threadName: String, handlers: Handlers) {
        self.configuration = configuration
        self.channels = channels
        self.threadName = threadName
        self.handlers = handlers
    }

    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let worker = JoinableThread.start(name: threadName) { [self] in run() }
        thread.withLock { $0 = worker }
    }

    /// Returns once the thread has ended (within one wait slice).
    public func stop() {
        stopping.store(true, ordering: .releasing)
        thread.withLock { $0.take() }?.join()
    }

    private var isStopping: Bool {
        stopping.load(ordering: .acquiring)
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

    /// Sleeps in short steps so that `stop` is not held up by a long delay.
    private func sleep(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !isStopping, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
