import Foundation
import Synchronization
import TidingsObservability
import TidingsPostgres

/// Keeps a LISTEN session on `tidings_credentials` (migration 0009) and
/// makes the credential cache forget every key revoked or deleted on any
/// replica. The cache is trusted only while the session is up: a lost
/// session distrusts (and empties) it until a new one listens, so a
/// revocation is never missed, only the cache skipped for a while.
final class CredentialRevocationListener: Sendable {
    static let channel = "tidings_credentials"

    private let cache: CredentialCache
    private let configuration: PostgresConfiguration
    private let logger: Logger
    private let stopped = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    init(cache: CredentialCache, configuration: PostgresConfiguration, logger: Logger) {
        self.cache = cache
        self.configuration = configuration
        self.logger = logger
    }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "tidings-credentials"
        thread.start()
    }

    /// Returns once the listening thread has ended (within one wait tick).
    func stop() {
        stopped.store(true, ordering: .releasing)
        finished.wait()
        cache.setTrusted(false)
    }

    private func run() {
        var retryDelay: Duration = .milliseconds(100)
        while !stopped.load(ordering: .acquiring) {
            do {
                let listener = try PostgresListener(configuration: configuration, channels: [Self.channel])
                cache.setTrusted(true)
                retryDelay = .milliseconds(100)
                while !stopped.load(ordering: .acquiring) {
                    for notification in try listener.wait(timeout: .milliseconds(250)) {
                        forget(notification.payload)
                    }
                }
            } catch {
                cache.setTrusted(false)
                logger.warning("credential cache off until revocations can be heard again", metadata: ["error": "\(error)"])
                sleep(retryDelay)
                retryDelay = min(retryDelay * 2, .seconds(5))
            }
        }
    }

    private func forget(_ payload: String) {
        guard let keyID = UUID(uuidString: payload) else {
            // Unknown payload: forget everything rather than guess.
            cache.setTrusted(true)
            return
        }
        cache.invalidate(keyID: keyID)
    }

    /// Sleeps in short steps so that `stop` is not held up.
    private func sleep(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !stopped.load(ordering: .acquiring), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
