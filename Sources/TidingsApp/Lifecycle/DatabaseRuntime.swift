import Foundation
import TidingsLocalPostgres
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// The database side of a running Tidings: a private PostgreSQL cluster when
/// no URL is configured, the connection pool, and the applied schema. The
/// first service to start and the last to stop.
final class DatabaseRuntime: Service {
    let client: PostgresClient
    let migrations: MigrationRunner
    /// `migrations` on a connection of its own, for `/readyz`: a probe
    /// measures the database, not the API pool's queue, which a flood of
    /// requests can make long.
    let readiness: MigrationRunner
    private let readinessClient: PostgresClient
    /// The highest migration shipped with this build.
    let expectedSchemaVersion: Int
    let privateCluster: LocalPostgresCluster?
    private let logger: Logger

    /// Prepares the pool (no connection yet) and, without a database URL,
    /// the private cluster in the data directory.
    init(
        configuration: Configuration,
        migrationsDirectory: String,
        functionsDirectory: String,
        logger: Logger,
        metrics: MetricsRegistry
    ) throws {
        let connectionString: String
        if let url = configuration.databaseURL {
            connectionString = url
            privateCluster = nil
        } else {
            let directory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path
            let cluster = LocalPostgresCluster(directory: directory, logger: logger)
            privateCluster = cluster
            connectionString = cluster.connectionString
        }

        var postgres = PostgresConfiguration(connectionString: connectionString)
        postgres.maxConnections = configuration.databasePoolSize
        postgres.acquireTimeout = configuration.databaseAcquireTimeout
        // Read by queue_events() (migration 0015) when it queues a badge.
        postgres.sessionSettings["tidings.badge_coalesce"] = configuration.badgeCoalescingSetting
        // Read by queue_pushes() (migration 0020).
        postgres.sessionSettings.merge(configuration.pushSettings) { _, new in new }
        // Read by the per-user limit triggers (migration 0018).
        postgres.sessionSettings.merge(configuration.userLimitSettings) { _, new in new }
        // Every statement Tidings runs is short. When estimates lag a table
        // that just grew (a burst of deliveries, a batch of changes) they
        // cross the JIT threshold, and compiling costs tens of milliseconds
        // for a plan that runs in a few.
        postgres.sessionSettings["jit"] = "off"
        client = PostgresClient(configuration: postgres, logger: logger, metrics: metrics)
        var probe = postgres
        probe.maxConnections = 1
        probe.applicationName = "tidings-readiness"
        readinessClient = PostgresClient(configuration: probe, logger: logger)
        migrations = MigrationRunner(
            directory: migrationsDirectory, functionsDirectory: functionsDirectory, client: client, logger: logger)
        readiness = MigrationRunner(directory: migrationsDirectory, client: readinessClient, logger: logger)
        expectedSchemaVersion = try migrations.latestVersion()
        self.logger = logger
    }

    /// Starts the private cluster if there is one and applies pending
    /// migrations and changed function files; on failure whatever was started is stopped again.
    func start() throws {
        if let privateCluster {
            try privateCluster.start()
            logger.notice("private PostgreSQL is running", metadata: ["data_dir": privateCluster.dataDirectory])
        }
        do {
            let applied = try migrations.migrate()
            // Opens the probe's connection now rather than in the first
            // probe (PostgreSQL starts a process for it), perhaps mid-flood.
            _ = try readiness.appliedVersion()
            logger.info(
                "database schema is up to date",
                metadata: [
                    "migrations.applied_now": applied.joined(separator: ","),
                    "schema.version": String(expectedSchemaVersion),
                ])
        } catch {
            stop(deadline: .now)
            throw error
        }
    }

    /// Closes the pools and stops the private cluster. Queries have ended
    /// with the services stopped before this one.
    func stop(deadline: ContinuousClock.Instant) {
        readinessClient.stop(deadline: deadline)
        client.stop(deadline: deadline)
        guard let privateCluster else { return }
        do {
            try privateCluster.stop()
            logger.notice("private PostgreSQL stopped")
        } catch {
            logger.error("could not stop the private PostgreSQL", metadata: ["error": "\(error)"])
        }
    }
}
