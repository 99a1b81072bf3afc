import Foundation
import Testing
import TidingsObservability
import TidingsPostgres

enum TestSupport {
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static var executable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("tidings").path
    }

    static func baseDatabaseURL() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["TIDINGS_TEST_DATABASE_URL"],
            "TIDINGS_TEST_DATABASE_URL is not set: run the tests with `make test` (or scripts/run-tests.sh)"
        )
    }

    /// An empty database of its own for one test.
    static func createDatabase() throws -> String {
        let base = try baseDatabaseURL()
        let name = "tidings_dispatch_test_\(UInt64.random(in: 0...UInt64.max))"
        let admin = PostgresClient(
            configuration: PostgresConfiguration(connectionString: base, maxConnections: 1),
            logger: Logger(label: "test", logLevel: .error, sink: CapturingLogSink())
        )
        defer { admin.close() }
        try admin.withConnection { try $0.execute(unsafeSQL: "CREATE DATABASE \(name)") }
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        return try #require(components.string)
    }

    /// Polls `condition` until it holds or `timeout` passes; returns whether it held.
    static func eventually(timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(50), _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: interval)
        }
        return try condition()
    }

    /// Runs the PyPI `standardwebhooks` and `svix` verifiers over requests
    /// (scripts/webhooks/verify_signatures.py in the venv made by scripts/run-tests.sh).
    static func verifySignatures(_ items: [(secret: String, request: WebhookReceiver.Received)]) throws -> [[String: String]] {
        let python = try #require(
            ProcessInfo.processInfo.environment["TIDINGS_TEST_WEBHOOK_PYTHON"],
            "TIDINGS_TEST_WEBHOOK_PYTHON is not set: run the tests with scripts/run-tests.sh, which installs the verifiers"
        )
        let input = items.map { item in
            [
                "secret": item.secret,
                "id": item.request.webhookID,
                "timestamp": item.request.timestamp,
                "signature": item.request.signature,
                "body": String(decoding: item.request.body, as: UTF8.self),
            ]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repositoryRoot + "/scripts/webhooks/verify_signatures.py"]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try #require(try JSONSerialization.jsonObject(with: output) as? [[String: String]])
    }
}

extension TestSupport {
    static var quietLogger: Logger {
        Logger(label: "test", logLevel: .error, sink: CapturingLogSink())
    }
}
