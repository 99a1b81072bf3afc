import Foundation
import Testing
import TidingsApp
import TidingsHTTPClient
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@Suite struct ApplicationTests {
    private func get(_ client: HTTPClient, _ port: Int, _ path: String, headers: [(name: String, value: String)] = []) async throws
        -> HTTPClientResponse
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers = headers
        return try await client.execute(request)
    }

    private func jsonObject(_ body: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }

    @Test func servesOperationalEndpointsAgainstAnExternalDatabase() async throws {
        let sink = CapturingLogSink()
        let application = try Application.start(
            configuration: TestEnvironment.configuration(databaseURL: try TestDatabase.create()),
            logger: Logger(label: "tidings", logLevel: .info, sink: sink)
        )
        defer { application.stop() }
        let client = try HTTPClient(
            configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
        defer { client.stop() }
        let port = application.port
        #expect(port > 0)

        let health = try await get(client, port, "/healthz", headers: [("X-Request-Id", "probe-1")])
        #expect(health.status == 200)
        #expect(try jsonObject(health.body)["status"] as? String == "ok")
        #expect(health.header("x-request-id") == "probe-1")

        let ready = try await get(client, port, "/readyz")
        #expect(ready.status == 200)
        let readiness = try jsonObject(ready.body)
        #expect(readiness["status"] as? String == "ready")
        #expect(readiness["schema_version"] as? Int == readiness["expected_schema_version"] as? Int)
        #expect((readiness["schema_version"] as? Int ?? 0) >= 1)

        let spec = try await get(client, port, "/openapi.yaml")
        #expect(spec.status == 200)
        #expect(String(decoding: spec.body, as: UTF8.self).hasPrefix("openapi: 3.1"))

        let missing = try await get(client, port, "/v1/nothing-here")
        #expect(missing.status == 404)
        #expect(missing.header("content-type")?.hasPrefix("application/problem+json") == true)

        let metrics = try await get(client, port, "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(metrics.status == 200)
        #expect(text.contains(#"tidings_http_requests_total{method="GET",route="/healthz",status="200"} 1"#))
        #expect(text.contains(#"route="unmatched",status="404""#))
        #expect(text.contains("tidings_http_request_duration_seconds_bucket"))
        #expect(text.contains("tidings_db_pool_connections_in_use"))
        #expect(text.contains("tidings_db_pool_waiters"))

        let accessLines = sink.lines.filter { $0.contains("probe-1") }
        #expect(!accessLines.isEmpty)
    }

    @Test func databaseSessionsCarryTheApplicationsSettings() throws {
        var configuration = TestEnvironment.configuration(databaseURL: try TestDatabase.create())
        configuration.badgeCoalescingWindow = .milliseconds(750)
        let application = try Application.start(configuration: configuration, logger: Logger(label: "tidings", sink: CapturingLogSink()))
        defer { application.stop() }

        let row = try application.database.query(
            "SELECT current_setting('jit') AS jit, current_setting('tidings.badge_coalesce') AS badge_coalesce"
        )[0]
        #expect(try row.decode("jit", as: String.self) == "off")
        #expect(try row.decode("badge_coalesce", as: String.self) == "750ms")
    }

    @Test func readinessFailsWhenTheDatabaseIsGone() async throws {
        let databaseURL = try TestDatabase.create()
        var configuration = TestEnvironment.configuration(databaseURL: databaseURL)
        configuration.databaseAcquireTimeout = .seconds(1)
        let application = try Application.start(configuration: configuration, logger: Logger(label: "tidings", sink: CapturingLogSink()))
        defer { application.stop() }
        let client = try HTTPClient(
            configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
        defer { client.stop() }

        #expect(try await get(client, application.port, "/readyz").status == 200)
        try application.database.withConnection { connection in
            try connection.execute(unsafeSQL: "DROP TABLE tidings_schema_migrations")
        }
        // Probes are answered from a reading at most a second old.
        var notReady = try await get(client, application.port, "/readyz")
        _ = try await eventually(timeout: .seconds(1)) {
            notReady = try await get(client, application.port, "/readyz")
            return notReady.status != 200
        }
        #expect(notReady.status == 503)
        #expect(notReady.header("content-type")?.hasPrefix("application/problem+json") == true)
        #expect(try jsonObject(notReady.body)["status"] as? Int == 503)
    }

    @Test func twoHundredConcurrentRequestsThroughAPoolOfFour() async throws {
        var configuration = TestEnvironment.configuration(databaseURL: try TestDatabase.create())
        configuration.databasePoolSize = 4
        let application = try Application.start(
            configuration: configuration, logger: Logger(label: "tidings", logLevel: .warning, sink: CapturingLogSink()))
        defer { application.stop() }
        let client = try HTTPClient(
            configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
        defer { client.stop() }

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(application.port)/readyz")).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 200 })
        let statistics = application.database.statistics
        #expect(statistics.maxConnections == 4)
        #expect(statistics.totalCreated <= 4)
    }

    @Test func refusesToStartWithoutResources() throws {
        var configuration = TestEnvironment.configuration(databaseURL: "postgresql://nobody@/none?host=/nonexistent")
        configuration.resourcesDirectory = "/nonexistent/tidings"
        #expect(throws: (any Error).self) {
            try Application.start(configuration: configuration, logger: Logger(label: "tidings", sink: CapturingLogSink()))
        }
    }

    @Test func refusesOpenMetricsOnANonLoopbackListener() throws {
        var configuration = TestEnvironment.configuration(databaseURL: "postgresql://nobody@/none?host=/nonexistent")
        configuration.listenHost = "0.0.0.0"
        let error = #expect(throws: ConfigurationError.self) {
            try Application.start(configuration: configuration, logger: Logger(label: "tidings", sink: CapturingLogSink()))
        }
        #expect(error?.variable == "TIDINGS_METRICS_TOKEN")
        #expect(error?.message.contains("openssl rand -hex 32") == true)
        #expect(error?.message.contains("TIDINGS_METRICS_LISTEN") == true)
    }

    @Test func metricsCanWantAToken() async throws {
        var configuration = TestEnvironment.configuration(databaseURL: try TestDatabase.create())
        let token = String(repeating: "m", count: 40)
        configuration.metricsToken = token
        let application = try Application.start(configuration: configuration, logger: Logger(label: "tidings", sink: CapturingLogSink()))
        defer { application.stop() }
        let client = try HTTPClient(
            configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
        defer { client.stop() }
        let port = application.port

        let anonymous = try await get(client, port, "/metrics")
        #expect(anonymous.status == 401)
        #expect(anonymous.header("www-authenticate")?.hasPrefix("Bearer") == true)
        #expect(!String(decoding: anonymous.body, as: UTF8.self).contains("tidings_"))
        #expect(try await get(client, port, "/metrics", headers: [("Authorization", "Bearer wrong")]).status == 401)
        #expect(try await get(client, port, "/metrics", headers: [("Authorization", "Basic \(token)")]).status == 401)
        let scraped = try await get(client, port, "/metrics", headers: [("Authorization", "Bearer \(token)")])
        #expect(scraped.status == 200)
        #expect(String(decoding: scraped.body, as: UTF8.self).contains("tidings_http_requests_total"))
        // Probes stay open.
        #expect(try await get(client, port, "/healthz").status == 200)
    }

    @Test func metricsCanMoveToAListenerOfTheirOwn() async throws {
        var configuration = TestEnvironment.configuration(databaseURL: try TestDatabase.create())
        configuration.metricsListen = (host: "127.0.0.1", port: 0)
        let application = try Application.start(configuration: configuration, logger: Logger(label: "tidings", sink: CapturingLogSink()))
        defer { application.stop() }
        let client = try HTTPClient(
            configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
        defer { client.stop() }
        let metricsPort = try #require(application.metricsPort)
        #expect(metricsPort != application.port)

        #expect(try await get(client, application.port, "/healthz").status == 200)
        #expect(try await get(client, application.port, "/metrics").status == 404)
        let scraped = try await get(client, metricsPort, "/metrics")
        #expect(scraped.status == 200)
        #expect(String(decoding: scraped.body, as: UTF8.self).contains(#"route="/healthz",status="200""#))
        #expect(try await get(client, metricsPort, "/healthz").status == 200)
        // Only metrics and liveness there: not the API.
        #expect(try await get(client, metricsPort, "/v1/watches").status == 404)
    }

    @Test func metricsTokensAreLongAndListenAddressesValid() {
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TIDINGS_METRICS_TOKEN": "short"]) }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TIDINGS_METRICS_LISTEN": "nowhere"]) }
        let parsed = try? Configuration(environment: ["TIDINGS_METRICS_LISTEN": "0.0.0.0:9090"])
        #expect(parsed?.metricsListen?.host == "0.0.0.0" && parsed?.metricsListen?.port == 9090)
    }

    @Test func readmeDocumentsEveryVariable() throws {
        let readme = try String(contentsOfFile: TestEnvironment.repositoryRoot + "/README.md", encoding: .utf8)
        for variable in ConfigurationVariable.all {
            #expect(readme.contains("`\(variable.name)`"), "README lacks \(variable.name)")
        }
        let lines = readme.split(separator: "\n")
        let firstCommand = try #require(lines.firstIndex { $0.hasPrefix("make ") })
        #expect(lines[firstCommand].hasPrefix("make run"))
        #expect(lines[firstCommand + 1].hasPrefix("make test"))
    }
}
