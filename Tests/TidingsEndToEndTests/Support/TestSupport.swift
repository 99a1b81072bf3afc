import Foundation
import Testing
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

enum TestSupport {
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static var executable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("tidings").path
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

    /// A small client of the test's own, beside the process under test.
    static func databaseClient(_ databaseURL: String) -> PostgresClient {
        PostgresClient(configuration: PostgresConfiguration(connectionString: databaseURL, maxConnections: 2), logger: quietLogger)
    }
}
