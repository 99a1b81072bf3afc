import Foundation
import Testing
import TidingsApp
import TidingsHTTPClient
import TidingsObservability
import TidingsTestSupport

/// A running Tidings on a fresh database, plus a client that speaks JSON to
/// it. One per test; `stop()` in a `defer`.
final class APITestServer: Sendable {
    static let adminToken = TestAPIClient.adminToken

    let application: Application
    let api: TestAPIClient
    let logSink = CapturingLogSink()

    convenience init(configure: (inout Configuration) -> Void = { _ in }) throws {
        try self.init(databaseURL: try TestDatabase.create(), configure: configure)
    }

    /// A second replica: another application on the first one's database.
    convenience init(sharingDatabaseWith other: APITestServer, configure: (inout Configuration) -> Void = { _ in }) throws {
        try self.init(databaseURL: try #require(other.application.configuration.databaseURL), configure: configure)
    }

    private init(databaseURL: String, configure: (inout Configuration) -> Void) throws {
        var configuration = TestEnvironment.configuration(databaseURL: databaseURL)
        configuration.adminToken = Self.adminToken
        configuration.allowPrivateTargets = false
        // A check's task runs on this process's cooperative pool, which the
        // suites running alongside keep busy for tens of seconds at times:
        // only the test that is about the deadline sets a short one.
        configuration.checkNowTimeout = .seconds(300)
        configure(&configuration)
        application = try Application.start(configuration: configuration, logger: Logger(label: "tidings", logLevel: .info, sink: logSink))
        api = try TestAPIClient(port: application.port)
    }

    func stop() {
        api.stop()
        application.stop()
    }

    typealias Response = TestAPIResponse

    func send(
        _ method: String,
        _ path: String,
        token: String? = nil,
        json: Any? = nil,
        rawBody: [UInt8]? = nil,
        contentType: String = "application/json"
    ) async throws -> Response {
        try await api.send(method, path, token: token, json: json, rawBody: rawBody, contentType: contentType)
    }

    /// Creates a user through the admin API and returns its id and API key.
    func createUser(_ name: String = "user-\(UInt16.random(in: 0...UInt16.max))") async throws -> (id: String, key: String) {
        try await api.createUser(name)
    }
}
