import Foundation
import Testing
import TidingsApp
import TidingsHTTPClient
import TidingsObservability

/// A running Tidings on a fresh database, plus a client that speaks JSON to
/// it. One per test; `stop()` in a `defer`.
final class APITestServer: Sendable {
    static let adminToken = "test-admin-token-0123456789abcdefghijklmnop"

    let application: Application
    let client: HTTPClient
    let logSink = CapturingLogSink()

    convenience init(configure: (inout Configuration) -> Void = { _ in }) throws {
        try self.init(databaseURL: try TestEnvironment.createDatabase(), configure: configure)
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
        client = try HTTPClient(configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
    }

    func stop() {
        client.stop()
        application.stop()
    }

    struct Response {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var text: String {
            String(decoding: body, as: UTF8.self)
        }

        /// The body as a JSON object; fails the test when it is not one.
        func object() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], "not a JSON object: \(text)")
        }

        /// `data` of a list response.
        func items() throws -> [[String: Any]] {
            try #require(try object()["data"] as? [[String: Any]])
        }

        var isProblem: Bool {
            header("content-type")?.hasPrefix("application/problem+json") == true
        }
    }

    /// Sends `json` (any JSONSerialization value, or raw bytes via `rawBody`)
    /// with an optional bearer token.
    func send(
        _ method: String,
        _ path: String,
        token: String? = nil,
        json: Any? = nil,
        rawBody: [UInt8]? = nil,
        contentType: String = "application/json"
    ) async throws -> Response {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(application.port)\(path)", method: method)
        if let token { request.headers.append((name: "Authorization", value: "Bearer \(token)")) }
        if let json {
            request.body = [UInt8](try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
        } else if let rawBody {
            request.body = rawBody
        }
        if request.body != nil { request.headers.append((name: "Content-Type", value: contentType)) }
        let response = try await client.execute(request)
        return Response(status: response.status, headers: response.headers, body: response.body)
    }

    /// Creates a user through the admin API and returns its id and API key.
    func createUser(_ name: String = "user-\(UInt16.random(in: 0...UInt16.max))") async throws -> (id: String, key: String) {
        let response = try await send("POST", "/v1/users", token: Self.adminToken, json: ["name": name])
        #expect(response.status == 201, "\(response.text)")
        let object = try response.object()
        let user = try #require(object["user"] as? [String: Any])
        return (try #require(user["id"] as? String), try #require(object["api_key"] as? String))
    }
}
