import Foundation
import TidingsCrypto
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability
import TidingsDispatcher
import TidingsPoller
import TidingsPostgres

/// A running Tidings: database runtime, poller, webhook and push dispatchers (each
/// with its own outbound HTTP client) and the HTTP server. `start` brings them up in that
/// order; `shutdown` takes them down
/// in reverse, and a failure half-way stops whatever had already started.
package final class Application: Sendable {
    package let configuration: Configuration
    package let metrics: MetricsRegistry
    /// Checks due targets in the background; also runs API-requested checks.
    package let poller: Poller
    /// Posts queued deliveries to webhooks.
    package let dispatcher: WebhookDispatcher
    package let pushDispatcher: PushDispatcher
    /// Seals and opens the secrets stored in the database.
    package let secrets: StoredSecrets
    private let databaseRuntime: DatabaseRuntime
    private let server: HTTPServer
    private let metricsServer: HTTPServer?
    private let credentialListener: CredentialRevocationListener?
    private let streams: EventStreamHub
    private let logger: Logger

    package var database: PostgresClient {
        databaseRuntime.client
    }

    /// The port the HTTP server listens on (useful with `TIDINGS_LISTEN=127.0.0.1:0`).
    package var port: Int {
        server.boundPort
    }

    /// The metrics listener's port, when `TIDINGS_METRICS_LISTEN` is set.
    package var metricsPort: Int? {
        metricsServer?.boundPort
    }

    package static func start(configuration: Configuration, logger: Logger) throws -> Application {
        try configuration.checkMetricsExposure()
        let resources = try ResourceLocator.locate(configured: configuration.resourcesDirectory)
        let openAPIDocument = try [UInt8](Data(contentsOf: URL(fileURLWithPath: resources.openAPIPath)))
        let metrics = MetricsRegistry()
        let adminToken = try AdminToken.resolve(configuration: configuration, logger: logger)
        let keyring = try SecretKeyFile.resolve(configuration: configuration, logger: logger)
        let vapidKey = try VAPIDKeyFile.resolve(configuration: configuration, logger: logger)
        let databaseRuntime = try DatabaseRuntime.open(
            configuration: configuration,
            migrationsDirectory: resources.migrationsDirectory,
            logger: logger,
            metrics: metrics
        )
        var credentialListener: CredentialRevocationListener?
        var startedPoller: Poller?
        var startedDispatcher: WebhookDispatcher?
        var startedPushDispatcher: PushDispatcher?
        var startedStreams: EventStreamHub?
        do {
            let secrets = try openSecrets(keyring: keyring, database: databaseRuntime.client, logger: logger)
            try VAPIDKeyFile.install(vapidKey, apps: PushAppStore(database: databaseRuntime.client, secrets: secrets), logger: logger)
            let poller = try Poller(
                configuration: configuration.pollerConfiguration,
                httpClientConfiguration: configuration.pollerHTTPClientConfiguration,
                database: databaseRuntime.client,
                secrets: secrets,
                logger: logger,
                metrics: metrics
            )
            poller.start()
            startedPoller = poller
            let dispatcher = try WebhookDispatcher(
                configuration: configuration.dispatcherConfiguration,
                database: databaseRuntime.client,
                secrets: secrets,
                logger: logger,
                metrics: metrics
            )
            dispatcher.start()
            startedDispatcher = dispatcher
            let pushDispatcher = try PushDispatcher(
                configuration: configuration.pushDispatcherConfiguration,
                database: databaseRuntime.client,
                secrets: secrets,
                logger: logger,
                metrics: metrics
            )
            pushDispatcher.start()
            startedPushDispatcher = pushDispatcher

            var credentialCache: CredentialCache?
            if configuration.credentialCacheLifetime > .zero {
                let cache = CredentialCache(lifetime: configuration.credentialCacheLifetime, metrics: metrics)
                let listener = CredentialRevocationListener(cache: cache, configuration: databaseRuntime.client.configuration, logger: logger)
                listener.start()
                credentialCache = cache
                credentialListener = listener
            }

            let streams = EventStreamHub(
                settings: configuration.eventStreamSettings,
                database: databaseRuntime.client,
                logger: logger,
                metrics: metrics
            )
            streams.start()
            startedStreams = streams

            var router = Router()
            let operations = OperationsController(
                migrations: databaseRuntime.readiness,
                expectedSchemaVersion: databaseRuntime.expectedSchemaVersion,
                metrics: metrics,
                metricsToken: configuration.metricsToken,
                openAPIDocument: openAPIDocument
            )
            operations.register(on: &router, includingMetrics: configuration.metricsServerConfiguration == nil)
            APIRoutes(
                database: databaseRuntime.client,
                secrets: secrets,
                adminToken: adminToken,
                configuration: configuration,
                credentialCache: credentialCache,
                checks: poller,
                streams: streams
            ).register(on: &router)
            if configuration.dashboardEnabled {
                try DashboardController(assets: DashboardAssets.load(from: resources.dashboardDirectory)).register(on: &router)
            }

            let server = HTTPServer(
                configuration: configuration.httpServerConfiguration,
                responder: DatabaseErrorResponder(wrapped: router),
                logger: logger,
                metrics: metrics
            )
            var metricsServer: HTTPServer?
            if let metricsConfiguration = configuration.metricsServerConfiguration {
                var metricsRouter = Router()
                operations.registerMetricsListener(on: &metricsRouter)
                // Its own registry: scrapes do not count as API traffic.
                let started = HTTPServer(configuration: metricsConfiguration, responder: metricsRouter, logger: logger, metrics: MetricsRegistry())
                try started.start()
                metricsServer = started
                logger.notice("metrics are served on their own listener", metadata: [
                    "http.address": "\(metricsConfiguration.host):\(started.boundPort)",
                ])
            }
            do {
                try server.start()
            } catch {
                metricsServer?.shutdown()
                throw error
            }
            logger.notice("tidings is serving", metadata: [
                "http.address": "\(configuration.listenHost):\(server.boundPort)",
                "database": databaseRuntime.privateCluster == nil ? "external" : "private",
            ])
            return Application(
                configuration: configuration,
                metrics: metrics,
                poller: poller,
                dispatcher: dispatcher,
                pushDispatcher: pushDispatcher,
                secrets: secrets,
                databaseRuntime: databaseRuntime,
                server: server,
                metricsServer: metricsServer,
                credentialListener: credentialListener,
                streams: streams,
                logger: logger
            )
        } catch {
            startedStreams?.stop()
            credentialListener?.stop()
            startedPushDispatcher?.shutdown()
            startedDispatcher?.shutdown()
            startedPoller?.shutdown()
            databaseRuntime.close(logger: logger)
            throw error
        }
    }

    /// Applies pending migrations (starting the private cluster if needed)
    /// and stops again: `tidings migrate`.
    package static func migrate(configuration: Configuration, logger: Logger) throws {
        let resources = try ResourceLocator.locate(configured: configuration.resourcesDirectory)
        let runtime = try DatabaseRuntime.open(
            configuration: configuration,
            migrationsDirectory: resources.migrationsDirectory,
            logger: logger,
            metrics: MetricsRegistry()
        )
        runtime.close(logger: logger)
    }

    /// `tidings rotate-secret-key`: applies pending migrations, then
    /// re-seals every stored secret not sealed under the current key (plain
    /// ones, and those under the previous keys), in batches of short
    /// transactions, while other replicas keep running.
    package static func rotateSecretKey(configuration: Configuration, logger: Logger) throws -> SecretRotationResult {
        let resources = try ResourceLocator.locate(configured: configuration.resourcesDirectory)
        let keyring = try SecretKeyFile.resolve(configuration: configuration, logger: logger)
        let runtime = try DatabaseRuntime.open(
            configuration: configuration,
            migrationsDirectory: resources.migrationsDirectory,
            logger: logger,
            metrics: MetricsRegistry()
        )
        defer { runtime.close(logger: logger) }
        let secrets = try StoredSecrets.load(keyring: keyring, database: runtime.client)
        let result = try SecretRotationStore(database: runtime.client, secrets: secrets).run(.notUnderCurrentKey)
        if result.remaining > 0 { throw StoredSecretsError.notFinished(rows: result.remaining) }
        logger.notice("stored secrets re-encrypted", metadata: [
            "secret_key.id": keyring.current.id,
            "rows": String(result.total),
            "webhooks": String(result.webhooks),
            "push_apps": String(result.pushApps),
            "targets": String(result.targets),
            "targets.merged": String(result.mergedTargets),
            "keys": String(result.keys),
        ])
        return result
    }

    /// Loads the stored keys (failing start-up when the configured keys do
    /// not open them) and seals whatever is still plain, before anything
    /// else can read it: no plain secret survives a start.
    private static func openSecrets(keyring: SecretKeyring, database: PostgresClient, logger: Logger) throws -> StoredSecrets {
        let secrets = try StoredSecrets.load(keyring: keyring, database: database)
        // A few passes only: rows still plain after them are being written
        // right now by replicas of the previous version, which the next
        // start (or `tidings rotate-secret-key`) seals; start-up goes on.
        let sealed = try SecretRotationStore(database: database, secrets: secrets).run(.plainOnly, passes: 5)
        if sealed.remaining > 0 {
            logger.warning("plain secrets are still being written, by a replica of an older version?", metadata: [
                "rows": String(sealed.remaining),
            ])
        }
        if sealed.total > 0 {
            logger.notice("plain secrets encrypted", metadata: [
                "secret_key.id": keyring.current.id,
                "webhooks": String(sealed.webhooks),
                "targets": String(sealed.targets),
                "targets.merged": String(sealed.mergedTargets),
            ])
        }
        return secrets
    }

    private init(
        configuration: Configuration,
        metrics: MetricsRegistry,
        poller: Poller,
        dispatcher: WebhookDispatcher,
        pushDispatcher: PushDispatcher,
        secrets: StoredSecrets,
        databaseRuntime: DatabaseRuntime,
        server: HTTPServer,
        metricsServer: HTTPServer?,
        credentialListener: CredentialRevocationListener?,
        streams: EventStreamHub,
        logger: Logger
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.poller = poller
        self.dispatcher = dispatcher
        self.pushDispatcher = pushDispatcher
        self.secrets = secrets
        self.databaseRuntime = databaseRuntime
        self.server = server
        self.metricsServer = metricsServer
        self.credentialListener = credentialListener
        self.streams = streams
        self.logger = logger
    }

    /// Stops accepting, lets in-flight requests finish within the shutdown
    /// timeout, stops the poller (unfinished checks give their leases back)
    /// and the dispatcher (releasing the leases of unfinished deliveries),
    /// then closes outbound work, the pool and the private cluster.
    package func shutdown() {
        logger.notice("shutting down")
        // Streams end cleanly first, so their clients reconnect elsewhere
        // while this server drains.
        streams.stop()
        server.shutdown()
        metricsServer?.shutdown()
        credentialListener?.stop()
        poller.shutdown(grace: configuration.shutdownTimeout)
        dispatcher.shutdown()
        pushDispatcher.shutdown()
        databaseRuntime.close(logger: logger)
        logger.notice("shutdown complete")
    }
}
