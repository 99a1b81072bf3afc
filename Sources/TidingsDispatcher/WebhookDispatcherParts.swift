import TidingsDomain
package import TidingsHTTPClient
package import TidingsObservability
package import TidingsPostgres
import TidingsSynchronization

/// What a `WebhookDispatcher` works with, made by its owner and handed
/// over: the dispatcher stops them when it stops. Tests hand it parts of
/// their own.
package struct WebhookDispatcherParts: Sendable {
    /// Claims and the writer; the heartbeat borrows a connection.
    package let pool: PostgresClient
    /// Posts the deliveries.
    package let client: HTTPClient

    package init(pool: PostgresClient, client: HTTPClient) {
        self.pool = pool
        self.client = client
    }

    /// The parts a running Tidings gives its dispatcher: a small pool of
    /// its own to the server `database` names, whose sessions commit
    /// without waiting for the WAL flush (`synchronous_commit = off`):
    /// should PostgreSQL itself crash, the last moment of attempt records
    /// and leases is lost and those deliveries are sent again with the same
    /// `webhook-id`, which at-least-once delivery allows. The API's writes
    /// keep full durability. And an HTTP client of its own.
    package static func make(
        configuration: DispatcherConfiguration, database: PostgresConfiguration, logger: Logger
    ) throws -> WebhookDispatcherParts {
        var postgres = database
        // One for claims, one for the writer; the heartbeat borrows one for
        // a moment each second.
        postgres.maxConnections = 2
        postgres.applicationName = "tidings-dispatcher"
        postgres.sessionSettings["synchronous_commit"] = "off"
        // The claim must read the due index in order and stop early; with
        // statistics lagging a fast-moving queue the planner would rather
        // collect every due row in a bitmap and sort them.
        postgres.sessionSettings["enable_bitmapscan"] = "off"
        var http = HTTPClientConfiguration()
        http.connectTimeout = min(configuration.connectTimeout, configuration.timeout)
        http.timeout = configuration.timeout
        http.maxResponseSize = DeliveryAttempt.responseSnippetLimit
        http.maxRedirects = 0
        http.allowPrivateTargets = configuration.allowPrivateTargets
        http.userAgent = configuration.userAgent
        http.maxTotalConnections = max(configuration.maxInFlight, 16)
        let client = try HTTPClient(configuration: http, logger: logger)
        return WebhookDispatcherParts(pool: PostgresClient(configuration: postgres, logger: logger), client: client)
    }
}
