import FoundationEssentials
import TidingsHTTPServer
import TidingsObservability
import TidingsPostgres

/// `/healthz`, `/readyz`, `/metrics` and `/openapi.yaml`: what load
/// balancers, orchestrators, Prometheus and API clients ask of every replica.
struct OperationsController: Sendable {
    let migrations: MigrationRunner
    let expectedSchemaVersion: Int
    let metrics: MetricsRegistry
    let openAPIDocument: [UInt8]
    /// The usual readiness answer, encoded once: probes and load balancers
    /// ask many times a second.
    private let upToDate: HTTPResponse

    init(migrations: MigrationRunner, expectedSchemaVersion: Int, metrics: MetricsRegistry, openAPIDocument: [UInt8]) {
        self.migrations = migrations
        self.expectedSchemaVersion = expectedSchemaVersion
        self.metrics = metrics
        self.openAPIDocument = openAPIDocument
        self.upToDate = Self.readinessResponse(applied: expectedSchemaVersion, expected: expectedSchemaVersion)
    }

    func register(on router: inout Router) {
        router.get("/healthz", use: health)
        router.get("/readyz", use: readiness)
        router.get("/metrics", use: prometheusMetrics)
        router.get("/openapi.yaml", use: openAPI)
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
        let applied: Int
        do {
            applied = try migrations.appliedVersion()
        } catch {
            context.logger.warning("readiness check failed: database unreachable", metadata: ["error": "\(error)"])
            throw HTTPError(.serviceUnavailable, detail: "The database is unreachable.")
        }
        guard applied >= expectedSchemaVersion else {
            throw HTTPError(.serviceUnavailable,
                            detail: "Database migrations are not applied (schema version \(applied), expected \(expectedSchemaVersion)).")
        }
        if applied == expectedSchemaVersion {
            return upToDate
        }
        // A newer replica already migrated further during a rolling upgrade.
        return Self.readinessResponse(applied: applied, expected: expectedSchemaVersion)
    }

    private static func readinessResponse(applied: Int, expected: Int) -> HTTPResponse {
        .json(Readiness(status: "ready", database: "ok", schemaVersion: applied, expectedSchemaVersion: expected))
    }

    @Sendable func prometheusMetrics(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        .text(metrics.renderPrometheus(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    @Sendable func openAPI(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/yaml")
        return HTTPResponse(status: .ok, headers: headers, body: openAPIDocument)
    }
}
