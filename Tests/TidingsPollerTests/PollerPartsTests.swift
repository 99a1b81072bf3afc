import Foundation
import Testing
import TidingsDomain
import TidingsHTTPClient
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// A poller built from parts the test makes (no application around it):
/// it checks through them and stops them when it stops.
@Suite(.serialized) struct PollerPartsTests {
    @Test func aPollerRunsOnThePartsItIsHandedAndStopsThem() async throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let origin = try TestOriginServer { _ in
            TestResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("parts".utf8))
        }
        defer { origin.stop() }
        let quiet = Logger(label: "test", logLevel: .error, sink: CapturingLogSink())
        // A smaller pool and client than `PollerParts.make` would size.
        var postgres = context.database.configuration
        postgres.maxConnections = 2
        postgres.applicationName = "tidings-poller-parts-test"
        let parts = PollerParts(
            pool: PostgresClient(configuration: postgres, logger: quiet),
            client: try HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(5), allowPrivateTargets: true), logger: quiet),
            extraction: try ThreadPool(name: "tidings.test.extraction", size: 1)
        )
        var configuration = PollerConfiguration()
        configuration.concurrency = 0
        configuration.writerCount = 1
        let poller = Poller(configuration: configuration, parts: parts, secrets: context.secrets, logger: quiet, metrics: MetricsRegistry())
        poller.start()
        let user = try context.user()
        let watch = try context.watch(user: user, url: "\(origin.baseURL)/page")

        #expect(try await context.check(watch, with: poller).result == .baseline)
        // The checks went through the pool it was handed.
        #expect(parts.pool.statistics.totalCreated > 0)

        poller.stop(within: .seconds(5))
        #expect(throws: PostgresError.self) { try parts.pool.query("SELECT 1") }
        await #expect(throws: HTTPClientError.self) {
            try await parts.client.execute(HTTPClientRequest(url: "\(origin.baseURL)/page"))
        }
    }
}
