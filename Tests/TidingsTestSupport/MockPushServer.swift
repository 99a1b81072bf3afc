import Foundation
import TidingsHTTPClient
import TidingsObservability
import TidingsSynchronization

/// The mock APNs, FCM and OAuth token endpoint of scripts/push-mock, run
/// with the Python of the venv scripts/run-tests.sh makes
/// (`TIDINGS_TEST_PUSH_PYTHON`). Each test starts its own: a fresh test
/// CA, fresh keys, fresh counts. The mock exits when its standard input
/// closes, so it does not outlive a test process that dies.
package final class MockPushServer: Sendable {
    package struct Startup: Decodable, Sendable {
        package let port: Int
        package let control_port: Int
        package let ca_file: String
        package let apns_key_file: String
        package let service_account_file: String
        package let team_id: String
        package let key_id: String
        package let topic: String
        /// A second APNs app the mock accepts, of the same team and key.
        package let second_topic: String
        package let project_id: String
        package let client_email: String
        package let token_uri: String
    }

    package let startup: Startup
    private let process: Process
    private let input: FileHandle
    private let directory: String
    private let control: HTTPClient

    package static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    package static func start() async throws -> MockPushServer {
        guard let python = ProcessInfo.processInfo.environment["TIDINGS_TEST_PUSH_PYTHON"] else {
            throw MockError(
                "TIDINGS_TEST_PUSH_PYTHON is not set: run the tests with scripts/run-tests.sh, which installs the mock's Python packages")
        }
        let directory = "/tmp/tidings-push-mock-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repositoryRoot + "/scripts/push-mock/mock_push_server.py", directory]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = await Self.firstLine(of: output.fileHandleForReading)
        guard let line, let startup = try? JSONDecoder().decode(Startup.self, from: Data(line.utf8)) else {
            process.terminate()
            try? FileManager.default.removeItem(atPath: directory)
            throw MockError("the push mock did not start (exit status \(process.isRunning ? "running" : "\(process.terminationStatus)"))")
        }
        var configuration = HTTPClientConfiguration(timeout: .seconds(10), allowPrivateTargets: true)
        configuration.maxResponseSize = 64 << 20
        let control = try HTTPClient(configuration: configuration, logger: Logger(label: "mock-control", logLevel: .error))
        return MockPushServer(startup: startup, process: process, input: input.fileHandleForWriting, directory: directory, control: control)
    }

    private init(startup: Startup, process: Process, input: FileHandle, directory: String, control: HTTPClient) {
        self.startup = startup
        self.process = process
        self.input = input
        self.directory = directory
        self.control = control
    }

    /// Reads the startup line on a thread of its own: the mock takes a
    /// moment to make its keys, and the cooperative pool must not block.
    private static func firstLine(of handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                }
                let line = bytes.split(separator: UInt8(ascii: "\n")).first.map { String(decoding: $0, as: UTF8.self) }
                continuation.resume(returning: line)
            }
        }
    }

    /// Closes the mock's standard input, which ends it; one that has not
    /// exited 10 s later is killed, so a stuck mock cannot hold up a test.
    package func stop() {
        control.stop()
        try? input.close()
        if !eventuallyBlocking(timeout: .seconds(10), every: .milliseconds(50), { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    package var baseURL: String { "https://127.0.0.1:\(startup.port)" }
    package var caFile: String { startup.ca_file }

    package var apnsKey: String {
        get throws { try String(contentsOfFile: startup.apns_key_file, encoding: .utf8) }
    }

    package var serviceAccountJSON: [UInt8] {
        get throws { Array(try Data(contentsOf: URL(fileURLWithPath: startup.service_account_file))) }
    }

    // MARK: Control

    /// The next answers for pushes to `token`.
    package func script(token: String, _ responses: [[String: Any]]) async throws {
        try await post("/script", ["token": token, "responses": responses])
    }

    /// The next answers of the token endpoint.
    package func scriptTokenEndpoint(_ responses: [[String: Any]]) async throws {
        try await post("/token-script", ["responses": responses])
    }

    /// Makes every push answer wait this long.
    package func setDelay(_ seconds: Double) async throws {
        try await post("/config", ["delay": seconds])
    }

    /// A Web Push subscription the mock made, as a browser's
    /// `PushSubscription` would carry it; the mock keeps its private key.
    package struct WebPushSubscription: Decodable, Sendable {
        package let id: String
        package let endpoint: String
        package let p256dh: String
        package let auth: String

        package init(id: String, endpoint: String, p256dh: String, auth: String) {
            self.id = id
            self.endpoint = endpoint
            self.p256dh = p256dh
            self.auth = auth
        }

        /// `push_subscription` of `POST /v1/devices`.
        package var json: [String: Any] {
            ["endpoint": endpoint, "keys": ["p256dh": p256dh, "auth": auth]]
        }
    }

    package func createWebPushSubscription() async throws -> WebPushSubscription {
        let response = try await control.execute(
            HTTPClientRequest(
                url: "http://127.0.0.1:\(startup.control_port)/wp-subscriptions", method: "POST", body: []
            ))
        guard response.status == 200 else { throw MockError("the push mock answered \(response.status) to /wp-subscriptions") }
        return try JSONDecoder().decode(WebPushSubscription.self, from: Data(response.body))
    }

    /// The next answers for Web Push messages to `subscription`.
    package func script(subscription: WebPushSubscription, _ responses: [[String: Any]]) async throws {
        try await script(token: subscription.id, responses)
    }

    package func stats() async throws -> MockStats {
        let response = try await control.execute(HTTPClientRequest(url: "http://127.0.0.1:\(startup.control_port)/stats"))
        return try JSONDecoder().decode(MockStats.self, from: Data(response.body))
    }

    private func post(_ path: String, _ document: [String: Any]) async throws {
        let body = try JSONSerialization.data(withJSONObject: document)
        let response = try await control.execute(
            HTTPClientRequest(
                url: "http://127.0.0.1:\(startup.control_port)\(path)", method: "POST",
                headers: [("Content-Type", "application/json")], body: Array(body)
            ))
        guard response.status == 204 else { throw MockError("the push mock answered \(response.status) to \(path)") }
    }
}

/// What the mock received (GET /stats).
package struct MockStats: Decodable, Sendable {
    package struct Request: Decodable, Sendable {
        package let kind: String
        package let connection: Int
        package let http_version: String
        package let status: Int?
        package let reason: String?
        // APNs
        package let token: String?
        package let jwt: String?
        package let iat: Int?
        package let topic: String?
        package let push_type: String?
        package let priority: String?
        package let collapse_id: String?
        package let expiration: String?
        package let apns_id: String?
        package let payload: String?
        package let payload_size: Int?
        // FCM
        package let path: String?
        package let access_token: String?
        package let body: String?
        /// Arrival at the mock, seconds since 1970 (APNs and Web Push).
        package let at: Double?
        // Web Push (token: the subscription id, jwt, topic, payload: the decrypted text)
        package let vapid_key: String?
        package let claims: VAPIDClaims?
        package let ttl: String?
        package let urgency: String?
        package let content_encoding: String?
        package let content_type: String?
        package let accept_encoding: String?
    }

    package struct VAPIDClaims: Decodable, Sendable {
        package let aud: String
        package let exp: Int
        package let sub: String
    }

    package struct TokenRequest: Decodable, Sendable {
        package struct Claims: Decodable, Sendable {
            package let iss: String
            package let scope: String
            package let aud: String
            package let iat: Int
            package let exp: Int
        }

        package let connection: Int
        package let content_type: String?
        package let status: Int?
        package let claims: Claims?
        package let form_keys: [String]?
        package let access_token: String?
    }

    package struct Connection: Decodable, Sendable {
        package let streams: Int
        package let max_in_flight: Int
        package let http_version: String
    }

    package let requests: [Request]
    package let token_requests: [TokenRequest]
    package let connections: [String: Connection]
    package let max_in_flight: Int

    package var apns: [Request] { requests.filter { $0.kind == "apns" } }
    package var fcm: [Request] { requests.filter { $0.kind == "fcm" } }
    package var webPush: [Request] { requests.filter { $0.kind == "webpush" } }
}
