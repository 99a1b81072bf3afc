import Foundation
import Testing
import TidingsHTTPClient
import TidingsObservability

/// The mock APNs, FCM and OAuth token endpoint of scripts/push-mock, run
/// with the Python of the venv scripts/run-tests.sh makes
/// (`TIDINGS_TEST_PUSH_PYTHON`). Each test starts its own: a fresh test
/// CA, fresh keys, fresh counts. The mock exits when its standard input
/// closes, so it does not outlive a test process that dies.
final class MockPushServer: Sendable {
    struct Startup: Decodable, Sendable {
        let port: Int
        let control_port: Int
        let ca_file: String
        let apns_key_file: String
        let service_account_file: String
        let team_id: String
        let key_id: String
        let topic: String
        let project_id: String
        let client_email: String
        let token_uri: String
    }

    let startup: Startup
    private let process: Process
    private let input: FileHandle
    private let directory: String
    private let control: HTTPClient

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func start() async throws -> MockPushServer {
        let python = try #require(
            ProcessInfo.processInfo.environment["TIDINGS_TEST_PUSH_PYTHON"],
            "TIDINGS_TEST_PUSH_PYTHON is not set: run the tests with scripts/run-tests.sh, which installs the mock's Python packages"
        )
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

    func stop() {
        control.shutdown()
        try? input.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var baseURL: String { "https://127.0.0.1:\(startup.port)" }
    var caFile: String { startup.ca_file }

    var apnsKey: String {
        get throws { try String(contentsOfFile: startup.apns_key_file, encoding: .utf8) }
    }

    var serviceAccountJSON: [UInt8] {
        get throws { Array(try Data(contentsOf: URL(fileURLWithPath: startup.service_account_file))) }
    }

    // MARK: Control

    /// The next answers for pushes to `token`.
    func script(token: String, _ responses: [[String: Any]]) async throws {
        try await post("/script", ["token": token, "responses": responses])
    }

    /// The next answers of the token endpoint.
    func scriptTokenEndpoint(_ responses: [[String: Any]]) async throws {
        try await post("/token-script", ["responses": responses])
    }

    /// Makes every push answer wait this long.
    func setDelay(_ seconds: Double) async throws {
        try await post("/config", ["delay": seconds])
    }

    func stats() async throws -> MockStats {
        let response = try await control.execute(HTTPClientRequest(url: "http://127.0.0.1:\(startup.control_port)/stats"))
        return try JSONDecoder().decode(MockStats.self, from: Data(response.body))
    }

    private func post(_ path: String, _ document: [String: Any]) async throws {
        let body = try JSONSerialization.data(withJSONObject: document)
        let response = try await control.execute(HTTPClientRequest(
            url: "http://127.0.0.1:\(startup.control_port)\(path)", method: "POST",
            headers: [("Content-Type", "application/json")], body: Array(body)
        ))
        #expect(response.status == 204)
    }
}

/// What the mock received (GET /stats).
struct MockStats: Decodable {
    struct Request: Decodable {
        let kind: String
        let connection: Int
        let http_version: String
        let status: Int?
        let reason: String?
        // APNs
        let token: String?
        let jwt: String?
        let iat: Int?
        let topic: String?
        let push_type: String?
        let priority: String?
        let collapse_id: String?
        let expiration: String?
        let apns_id: String?
        let payload: String?
        let payload_size: Int?
        // FCM
        let path: String?
        let access_token: String?
        let body: String?
    }

    struct TokenRequest: Decodable {
        struct Claims: Decodable {
            let iss: String
            let scope: String
            let aud: String
            let iat: Int
            let exp: Int
        }

        let connection: Int
        let content_type: String?
        let status: Int?
        let claims: Claims?
        let form_keys: [String]?
        let access_token: String?
    }

    struct Connection: Decodable {
        let streams: Int
        let max_in_flight: Int
        let http_version: String
    }

    let requests: [Request]
    let token_requests: [TokenRequest]
    let connections: [String: Connection]
    let max_in_flight: Int

    var apns: [Request] { requests.filter { $0.kind == "apns" } }
    var fcm: [Request] { requests.filter { $0.kind == "fcm" } }
}
