import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsKit
import TidingsObservability
import TidingsTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real Tidings on a throwaway database of the test PostgreSQL, listening
/// on loopback; `restart()` stops it and starts another on the same
/// database and port, as an app sees a server deploy.
final class KitTestServer: @unchecked Sendable {
    static let adminToken = "kit-admin-token-0123456789abcdefghijklmnop"
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    let databaseURL: String
    private(set) var application: Application

    /// `@unchecked Sendable`: `application` changes only in `restart()`,
    /// which a test calls from its one task.
    init(databaseURL: String? = nil, port: Int = 0) throws {
        self.databaseURL = try databaseURL ?? TestDatabase.create(prefix: "tidings_kit_test")
        application = try Self.start(databaseURL: self.databaseURL, port: port)
    }

    private static func start(databaseURL: String, port: Int) throws -> Application {
        var configuration = Configuration()
        configuration.databaseURL = databaseURL
        configuration.secretKey = try SecretKey(hex: TestSecretKeys.a)
        configuration.adminToken = adminToken
        configuration.listenHost = "127.0.0.1"
        configuration.listenPort = port
        configuration.resourcesDirectory = repositoryRoot
        configuration.shutdownTimeout = .seconds(2)
        // Checks run only when a test asks (checkWatch); the origin is on loopback.
        configuration.pollConcurrency = 0
        configuration.allowPrivateTargets = true
        configuration.checkNowTimeout = .seconds(120)
        // A test checks one watch several times in a row.
        configuration.checkNowRate = RatePolicy(count: 100, per: .seconds(1))
        configuration.httpConnectionsPerClient = configuration.httpConnectionLimit
        return try Application.start(
            configuration: configuration, logger: Logger(label: "tidings", logLevel: .warning, sink: CapturingLogSink()))
    }

    var port: Int { application.port }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func stop() {
        application.stop()
    }

    /// Stops the server and starts another on the same database and port.
    func restart(between: () async throws -> Void = {}) async throws {
        let port = port
        application.stop()
        try await between()
        application = try Self.start(databaseURL: databaseURL, port: port)
    }

    /// Creates a user through the admin API, as an app's backend does, and
    /// returns a client with its key.
    func createUser(name: String = "kit-user") async throws -> TidingsClient {
        TidingsClient(baseURL: baseURL, apiKey: try await createUserKey(name: name))
    }

    /// Creates a user through the admin API; returns its API key.
    func createUserKey(name: String = "kit-user") async throws -> String {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/users"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(Self.adminToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["name": name])
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201, "\(String(decoding: data, as: UTF8.self))")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["api_key"] as? String)
    }
}
