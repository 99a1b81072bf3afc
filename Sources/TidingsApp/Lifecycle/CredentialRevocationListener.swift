import FoundationEssentials
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// Keeps a LISTEN session on `tidings_credentials` (migration 0009) and
/// makes the credential cache forget every key revoked or deleted on any
/// replica. The cache is trusted only while the session is up: a lost
/// session distrusts (and empties) it until a new one listens, so a
/// revocation is never missed, only the cache skipped for a while.
final class CredentialRevocationListener: Service {
    static let channel = "tidings_credentials"

    private let cache: CredentialCache
    private let loop: PostgresNotificationLoop

    init(cache: CredentialCache, configuration: PostgresConfiguration, logger: Logger) {
        self.cache = cache
        loop = PostgresNotificationLoop(
            configuration: configuration,
            channels: [Self.channel],
            threadName: "tidings-credentials",
            handlers: .init(
                listening: { cache.forgetAllAndTrust() },
                received: { notifications in
                    for notification in notifications {
                        if let keyID = UUID(uuidString: notification.payload) {
                            cache.invalidate(keyID: keyID)
                        } else {
                            // Unknown payload: forget everything rather than guess.
                            cache.forgetAll()
                        }
                    }
                },
                lost: { error in
                    cache.forgetAllAndDistrust()
                    logger.warning("credential cache off until revocations can be heard again", metadata: ["error": "\(error)"])
                }
            )
        )
    }

    func start() {
        loop.start()
    }

    /// Returns once the listening thread has ended; the cache is then off.
    func stop(deadline: ContinuousClock.Instant) {
        loop.stop()
        cache.forgetAllAndDistrust()
    }
}
