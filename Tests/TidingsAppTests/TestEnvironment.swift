import Foundation
import Testing
import TidingsObservability
import TidingsApp
import TidingsPostgres

/// Locations and databases the end-to-end tests share.
enum TestEnvironment {
    /// The repository root, where `migrations/`, `openapi.yaml` and `README.md` live.
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func baseDatabaseURL() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["TIDINGS_TEST_DATABASE_URL"],
            "TIDINGS_TEST_DATABASE_URL is not set: run the tests with `make test` (or scripts/run-tests.sh)"
        )
    }

    /// Creates an empty database for one test and returns its URL.
    static func createDatabase() throws -> String {
        let base = try baseDatabaseURL()
        let name = "tidings_app_test_\(UInt64.random(in: 0...UInt64.max))"
        let admin = PostgresClient(
            configuration: PostgresConfiguration(connectionString: base),
            logger: Logger(label: "test", logLevel: .error, sink: CapturingLogSink())
        )
        defer { admin.close() }
        try admin.withConnection { connection in
            try connection.execute(unsafeSQL: "CREATE DATABASE \(name)")
        }
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        return try #require(components.string)
    }

    /// A configuration for an application on an ephemeral loopback port.
    static func configuration(databaseURL: String?, dataDirectory: String? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.databaseURL = databaseURL
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        configuration.listenHost = "127.0.0.1"
        configuration.listenPort = 0
        configuration.resourcesDirectory = repositoryRoot
        configuration.shutdownTimeout = .seconds(2)
        // API tests create watches of hosts that must not be fetched; the
        // poller's own tests and the check endpoint run checks explicitly.
        configuration.pollConcurrency = 0
        return configuration
    }
}
