import Foundation
import TidingsCrypto
package import TidingsDispatcher
package import TidingsDomain
import TidingsHTTPServer
package import TidingsObservability
package import TidingsPoller
package import TidingsPostgres
import TidingsSynchronization

/// A running Tidings: its services, started in order by one
/// `ServiceGroup` and stopped by it in reverse under one deadline: the
/// database runtime, the poller, the webhook and push dispatchers, the
/// credential revocation listener, the event stream hub and the HTTP
/// servers. A failure half-way stops whatever had already started.
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
    private let services: ServiceGroup
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
        let services = ServiceGroup(stopTimeout: configuration.shutdownTimeout)
        // The database first: the secrets and the VAPID key are read from it
        // before the engines are built.
        let databaseRuntime = try DatabaseRuntime(
            configuration: configuration,
            migrationsDirectory: resources.migrationsDirectory,
            functionsDirectory: resources.functionsDirectory,
            logger: logger,
            metrics: metrics
        )
        try services.start([.init("database", databaseRuntime)])
        // Built ones hold threads and pools until they are stopped, started
        // or not.
        var engines: [ServiceGroup.Member] = []
        do {
            let secrets = try openSecrets(keyring: keyring, database: databaseRuntime.client, logger: logger)
            try VAPIDKeyFile.install(vapidKey, apps: PushAppStore(database: databaseRuntime.client, secrets: secrets), logger: logger)
            // The engines stall and resume together: none reaps another's
            // lease owner row after a pause.
            let process = LeaseProcess()
            let poller = Poller(
                configuration: configuration.pollerConfiguration,
                parts: try PollerParts.make(
                    configuration: configuration.pollerConfiguration,
                    httpClientConfiguration: configuration.pollerHTTPClientConfiguration,
                    database: databaseRuntime.client.configuration,
                    logger: logger
                ),
                secrets: secrets,
                process: process,
                logger: logger,
                metrics: metrics
            )
            engines.append(.init("poller", poller))
            let dispatcher = WebhookDispatcher(
                configuration: configuration.dispatcherConfiguration,
                parts: try WebhookDispatcherParts.make(
                    configuration: configuration.dispatcherConfiguration,
                    database: databaseRuntime.client.configuration,
                    logger: logger
                ),
                listen: databaseRuntime.client.configuration,
                secrets: secrets,
                process: process,
                logger: logger,
                metrics: metrics
            )
            engines.append(.init("webhook dispatcher", dispatcher))
            let pushDispatcher = PushDispatcher(
                configuration: configuration.pushDispatcherConfiguration,
                pool: PushDispatcher.makePool(database: databaseRuntime.client.configuration, logger: logger),
                webPushWorkers: try PushDispatcher.makeWebPushWorkers(configuration: configuration.pushDispatcherConfiguration),
                listen: databaseRuntime.client.configuration,
                secrets: secrets,
                process: process,
                logger: logger,
                metrics: metrics
            )
            engines.append(.init("push dispatcher", pushDispatcher))

            var credentialCache: CredentialCache?
            if configuration.credentialCacheLifetime > .zero {
                let cache = CredentialCache(lifetime: configuration.credentialCacheLifetime, metrics: metrics)
                let listener = CredentialRevocationListener(
                    cache: cache, configuration: databaseRuntime.client.configuration, logger: logger)
                credentialCache = cache
                engines.append(.init("credential revocation listener", listener))
            }

            let streams = EventStreamHub(
                settings: configuration.eventStreamSettings,
                database: databaseRuntime.client,
                logger: logger,
                metrics: metrics
            )
            engines.append(.init("event streams", streams))

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
                let listener = HTTPServer(
                    configuration: metricsConfiguration, responder: metricsRouter, logger: logger, metrics: MetricsRegistry())
                engines.append(.init("metrics server", listener))
                metricsServer = listener
            }
            engines.append(.init("http server", server))
            try services.start(engines)

            if let metricsServer, let metricsConfiguration = configuration.metricsServerConfiguration {
                logger.notice(
                    "metrics are served on their own listener",
                    metadata: [
                        "http.address": "\(metricsConfiguration.host):\(metricsServer.boundPort)"
                    ])
            }
            logger.notice(
                "tidings is serving",
                metadata: [
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
                services: services,
                logger: logger
            )
        } catch {
            // A failed group start has stopped everything already; what
            // failed before it is stopped here (a second stop does nothing).
            for member in engines.reversed() { member.service.stop(deadline: .now) }
            services.stop(deadline: .now + configuration.shutdownTimeout)
            throw error
        }
    }

    /// Applies pending migrations (starting the private cluster if needed)
    /// and stops again: `tidings migrate`.
    package static func migrate(configuration: Configuration, logger: Logger) throws {
        let resources = try ResourceLocator.locate(configured: configuration.resourcesDirectory)
        let runtime = try DatabaseRuntime(
            configuration: configuration,
            migrationsDirectory: resources.migrationsDirectory,
            functionsDirectory: resources.functionsDirectory,
            logger: logger,
            metrics: MetricsRegistry()
        )
        try runtime.start()
        runtime.stop(within: configuration.shutdownTimeout)
    }

    /// `tidings rotate-secret-key`: applies pending migrations, then
    /// re-seals every stored secret not sealed under the current key (plain
    /// ones, and those under the previous keys), in batches of short
    /// transactions, while other replicas keep running.
    package static func rotateSecretKey(configuration: Configuration, logger: Logger) throws -> SecretRotationResult {
        let resources = try ResourceLocator.locate(configured: configuration.resourcesDirectory)
        let keyring = try SecretKeyFile.resolve(configuration: configuration, logger: logger)
        let runtime = try DatabaseRuntime(
            configuration: configuration,
            migrationsDirectory: resources.migrationsDirectory,
            functionsDirectory: resources.functionsDirectory,
            logger: logger,
            metrics: MetricsRegistry()
        )
        try runtime.start()
        defer { runtime.stop(within: configuration.shutdownTimeout) }
        let secrets = try StoredSecrets.load(keyring: keyring, database: runtime.client)
        let result = try SecretRotationStore(database: runtime.client, secrets: secrets).run(.notUnderCurrentKey)
        if result.remaining > 0 { throw StoredSecretsError.notFinished(rows: result.remaining) }
        logger.notice(
            "stored secrets re-encrypted",
            metadata: [
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
            logger.warning(
                "plain secrets are still being written, by a replica of an older version?",
                metadata: [
                    "rows": String(sealed.remaining)
                ])
        }
        if sealed.total > 0 {
            logger.notice(
                "plain secrets encrypted",
                metadata: [
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
        services: ServiceGroup,
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
        self.services = services
        self.logger = logger
    }

    /// Stops the services in reverse order of their start, all within the
    /// shutdown timeout: the HTTP server stops accepting and ends its
    /// streams, requests in flight finish; the engines stop claiming, let
    /// work in flight finish and give the leases of the rest back; the pool
    /// and the private cluster close last.
    package func stop() {
        logger.notice("shutting down")
        let late = services.stop(deadline: .now + configuration.shutdownTimeout)
        if !late.isEmpty {
            logger.warning(
                "services still stopping past the shutdown timeout were left behind",
                metadata: [
                    "services": late.joined(separator: ",")
                ])
        }
        logger.notice("shutdown complete")
    }
}
