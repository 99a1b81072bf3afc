import Dispatch
import FoundationEssentials
import TidingsHTTPServer
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// `/healthz`, `/readyz`, `/metrics` and `/openapi.yaml`: what load
/// balancers, orchestrators, Prometheus and API clients ask of every replica.
/// `/metrics` says how busy the service is and how its tenants' targets
/// fare, so it can want a token (`TIDINGS_METRICS_TOKEN`) and move to a
/// listener of its own (`TIDINGS_METRICS_LISTEN`).
struct OperationsController: Sendable {
    let migrations: MigrationRunner
    let expectedSchemaVersion: Int
    let metrics: MetricsRegistry
    let metricsToken: ExpectedToken?
    let openAPIDocument: [UInt8]
    /// The usual readiness answer, encoded once: probes and load balancers
    /// ask many times a second.
    private let upToDate: HTTPResponse
    /// The last schema version read: probes are answered from a reading at
    /// most a second old, however many arrive.
    private let readings: AdaptiveMutex<Readings>

    private struct Readings {
        var cache = ReadinessCache<ContinuousClock.Instant>()
        /// Entered while a refresh runs; probes that find the last reading
        /// too old wait on it.
        var refresh: DispatchGroup?
    }

    /// The longest a probe waits for a late refresh: the pool's default
    /// wait for a connection.
    static let lateRefreshWait: Duration = .seconds(5)

    init(
        migrations: MigrationRunner,
        expectedSchemaVersion: Int,
        metrics: MetricsRegistry,
        metricsToken: String?,
        openAPIDocument: [UInt8]
    ) {
        self.migrations = migrations
        self.expectedSchemaVersion = expectedSchemaVersion
        self.metrics = metrics
        self.metricsToken = metricsToken.map(ExpectedToken.init)
        self.openAPIDocument = openAPIDocument
        self.upToDate = Self.readinessResponse(applied: expectedSchemaVersion, expected: expectedSchemaVersion)
        var readings = Readings()
        // Start-up has just applied the migrations: that is the first reading.
        readings.cache.refreshed(.applied(expectedSchemaVersion), readAt: .now)
        self.readings = AdaptiveMutex(readings)
    }

    /// The API listener's routes; `/metrics` only when it has no listener
    /// of its own.
    func register(on router: inout Router, includingMetrics: Bool) {
        router.get("/healthz", use: health)
        router.get("/readyz", use: readiness)
        if includingMetrics { router.get("/metrics", use: prometheusMetrics) }
        router.get("/openapi.yaml", use: openAPI)
    }

    /// The metrics listener's routes.
    func registerMetricsListener(on router: inout Router) {
        router.get("/healthz", use: health)
        router.get("/metrics", use: prometheusMetrics)
    }

    struct Health: Encodable {
        let status: String
    }

    struct Readiness: Encodable {
        let status: String
        let database: String
        let schemaVersion: Int
        let expectedSchemaVersion: Int

        enum CodingKeys: String, CodingKey {
            case status, database
            case schemaVersion = "schema_version"
            case expectedSchemaVersion = "expected_schema_version"
        }
    }

    /// Encoded once: liveness probes come often and never vary.
    private static let healthy = HTTPResponse.json(Health(status: "ok"))

    @Sendable func health(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        Self.healthy
    }

    @Sendable func readiness(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let (step, refresh) = readings.withLock { readings in
            let step = readings.cache.next(now: .now)
            if step == .refresh {
                readings.refresh = DispatchGroup()
                readings.refresh?.enter()
            }
            return (step, readings.refresh)
        }
        let reading: ReadinessCache<ContinuousClock.Instant>.Reading
        switch step {
        case .answer(let last):
            reading = last
        case .refresh:
            reading = refreshReading(context, done: refresh)
        case .awaitRefresh:
            guard refresh?.wait(timeout: Self.lateRefreshWait.dispatchDeadline) != .timedOut,
                let last = readings.withLock({ $0.cache.lastReading })
            else {
                throw HTTPError(
                    .serviceUnavailable, detail: "The database has not answered the readiness check within \(Self.lateRefreshWait).")
            }
            reading = last
        }
        guard case .applied(let applied) = reading else {
            throw HTTPError(.serviceUnavailable, detail: "The database is unreachable.")
        }
        guard applied >= expectedSchemaVersion else {
            throw HTTPError(
                .serviceUnavailable,
                detail: "Database migrations are not applied (schema version \(applied), expected \(expectedSchemaVersion)).")
        }
        if applied == expectedSchemaVersion {
            return upToDate
        }
        // A newer replica already migrated further during a rolling upgrade.
        return Self.readinessResponse(applied: applied, expected: expectedSchemaVersion)
    }

    /// Reads the schema version, which then answers the probes of the next
    /// quarter second (a failure too), and lets the waiting probes go.
    private func refreshReading(_ context: RequestContext, done: DispatchGroup?) -> ReadinessCache<ContinuousClock.Instant>.Reading {
        defer { done?.leave() }
        let reading: ReadinessCache<ContinuousClock.Instant>.Reading
        do {
            reading = .applied(try migrations.appliedVersion())
        } catch {
            context.logger.warning("readiness check failed: database unreachable", metadata: ["error": "\(error)"])
            reading = .unreachable
        }
        readings.withLock { readings in
            readings.cache.refreshed(reading, readAt: .now)
            readings.refresh = nil
        }
        return reading
    }

    private static func readinessResponse(applied: Int, expected: Int) -> HTTPResponse {
        .json(Readiness(status: "ready", database: "ok", schemaVersion: applied, expectedSchemaVersion: expected))
    }

    @Sendable func prometheusMetrics(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        if let metricsToken {
            let token = try BearerCredential.token(in: request, missing: "Send the metrics token as \"Authorization: Bearer <token>\".")
            guard metricsToken.matches(token) else { throw BearerCredential.unauthorized("The metrics token is wrong.") }
        }
        return .text(metrics.renderPrometheus(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    @Sendable func openAPI(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/yaml")
        return HTTPResponse(status: .ok, headers: headers, body: openAPIDocument)
    }
}
