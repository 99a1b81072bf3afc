import Foundation
import TidingsHTTPClient
import TidingsObservability
import TidingsSynchronization

/// Speaks JSON to a Tidings listening on a loopback port, in this process
/// or another: the one API client of the test targets.
package final class TestAPIClient: Sendable {
    /// The admin token every test server and process is started with.
    package static let adminToken = "test-admin-token-0123456789abcdefghijklmnop"

    package let port: Int
    private let client: HTTPClient

    package init(port: Int) throws {
        self.port = port
        client = try HTTPClient(configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
    }

    package func stop() {
        client.stop()
    }

    /// Sends `json` (any JSONSerialization value, or raw bytes via
    /// `rawBody`) with an optional bearer token.
    package func send(
        _ method: String,
        _ path: String,
        token: String? = nil,
        json: Any? = nil,
        rawBody: [UInt8]? = nil,
        contentType: String = "application/json"
    ) async throws -> TestAPIResponse {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)", method: method)
        if let token { request.headers.append((name: "Authorization", value: "Bearer \(token)")) }
        if let json {
            request.body = [UInt8](try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
        } else if let rawBody {
            request.body = rawBody
        }
        if request.body != nil { request.headers.append((name: "Content-Type", value: contentType)) }
        let response = try await client.execute(request)
        return TestAPIResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// Sends and requires `status`; the answer's JSON object.
    @discardableResult
    package func expect(
        _ status: Int, _ method: String, _ path: String, token: String? = nil, json: Any? = nil
    ) async throws -> [String: Any] {
        let response = try await send(method, path, token: token, json: json)
        guard response.status == status else {
            throw MockError("\(method) \(path) answered \(response.status), not \(status): \(response.text)")
        }
        return try response.object()
    }

    /// Until `/readyz` answers 200 (a new process migrates first); false
    /// if it never did.
    package func waitUntilReady() async throws -> Bool {
        try await eventually(every: .milliseconds(100)) {
            (try? await send("GET", "/readyz"))?.status == 200
        }
    }

    /// Creates a user through the admin API; its id and API key.
    package func createUser(_ name: String = "user-\(UInt16.random(in: 0...UInt16.max))") async throws -> (id: String, key: String) {
        let object = try await expect(201, "POST", "/v1/users", token: Self.adminToken, json: ["name": name])
        guard let user = object["user"] as? [String: Any], let id = user["id"] as? String, let key = object["api_key"] as? String else {
            throw MockError("unexpected user answer: \(object)")
        }
        return (id, key)
    }
}
