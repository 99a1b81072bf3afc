import Foundation
import Testing
import TidingsHTTPClient
import TidingsObservability
import TidingsTestSupport
import TidingsSynchronization

/// Speaks to a Tidings in another process.
final class APIClient: Sendable {
    let port: Int
    private let client: HTTPClient

    init(port: Int) throws {
        self.port = port
        client = try HTTPClient(configuration: .init(allowPrivateTargets: true), logger: TestSupport.quietLogger)
    }

    func stop() {
        client.stop()
    }

    func waitUntilReady() async throws {
        let ready = try await eventually(every: .milliseconds(100)) { await readyStatus() == 200 }
        #expect(ready, "tidings did not become ready on port \(port)")
    }

    private func readyStatus() async -> Int {
        (try? await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/readyz")))?.status ?? 0
    }

    private func post(_ path: String, token: String, json: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)", method: "POST")
        request.headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        request.body = [UInt8](try JSONSerialization.data(withJSONObject: json))
        let response = try await client.execute(request)
        #expect(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func createUser() async throws -> (id: UUID, key: String) {
        let object = try await post("/v1/users", token: DispatcherHarness.adminToken, json: ["name": "burst"])
        let user = try #require(object["user"] as? [String: Any])
        let id = try #require(user["id"] as? String)
        return (try #require(UUID(uuidString: id)), try #require(object["api_key"] as? String))
    }

    func createWatch(key: String, url: String) async throws {
        _ = try await post("/v1/watches", token: key, json: ["url": url])
    }

    func createPushApp(_ body: [String: Any]) async throws {
        _ = try await post("/v1/push-apps", token: DispatcherHarness.adminToken, json: body)
    }

    func createWebhook(key: String, url: String) async throws {
        _ = try await post("/v1/webhooks", token: key, json: ["url": url, "event_types": ["watch.changed"]])
    }
}
