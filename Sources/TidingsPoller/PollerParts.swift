package import TidingsHTTPClient
package import TidingsObservability
package import TidingsPostgres
package import TidingsSynchronization

/// What a `Poller` works with, made by its owner and handed over: the
/// poller stops them when it stops. Tests hand it parts of their own.
package struct PollerParts: Sendable {
    /// Claims, the writers, the heartbeat and check-nows.
    package let pool: PostgresClient
    /// Fetches the targets.
    package let client: HTTPClient
    /// Runs extraction and hashing off the cooperative pool.
    package let extraction: ThreadPool

    package init(pool: PostgresClient, client: HTTPClient, extraction: ThreadPool) {
        self.pool = pool
        self.client = client
        self.extraction = extraction
    }

    /// The parts a running Tidings gives its poller: its own HTTP client
    /// (its own libcurl driver thread, so checks never queue behind webhook
    /// deliveries), its own small pool of connections to the server
    /// `database` names and its extraction threads.
    package static func make(
        configuration: PollerConfiguration,
        httpClientConfiguration: HTTPClientConfiguration,
        database: PostgresConfiguration,
        logger: Logger
    ) throws -> PollerParts {
        var clientConfiguration = httpClientConfiguration
        clientConfiguration.maxTotalConnections = max(clientConfiguration.maxTotalConnections, configuration.concurrency)
        var postgres = database
        // Claims, the writers, the heartbeat and a check-now: a pool of its
        // own, so that a flood of API requests (the API's pool serves them
        // first come, first served) never holds up a claim or a heartbeat
        // past the lease, as the dispatchers' pools already ensure.
        postgres.maxConnections = max(configuration.writerCount, 1) + 3
        postgres.applicationName = "tidings-poller"
        // Every statement of the poller finds its rows by id or walks the
        // due index from a cursor, whatever its values: one generic plan
        // serves them all. Left to choose, PostgreSQL planned each claim
        // anew and often worse; on the mix benchmark this setting took
        // PostgreSQL from 90 to 46 µs per check (BENCHMARKS.md, issue 31 §6).
        postgres.sessionSettings["plan_cache_mode"] = "force_generic_plan"
        let client = try HTTPClient(configuration: clientConfiguration, logger: logger)
        do {
            let extraction = try ThreadPool(
                name: "tidings-extraction",
                size: configuration.extractionThreads,
                abandonedThreadLimit: Poller.abandonedExtractionsPerThread * max(configuration.extractionThreads, 1)
            )
            return PollerParts(pool: PostgresClient(configuration: postgres, logger: logger), client: client, extraction: extraction)
        } catch {
            client.stop()
            throw error
        }
    }
}
