import Foundation
import Testing
import TidingsObservability
import TidingsPostgres

/// Gives a test a database of its own on the server named by
/// TIDINGS_TEST_DATABASE_URL, dropped afterwards, so tests running in
/// parallel never see each other's tables.
enum TestDatabase {
    static let environmentVariable = "TIDINGS_TEST_DATABASE_URL"

    static func serverURL() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment[environmentVariable],
            "set \(environmentVariable) to a PostgreSQL URL (scripts/test-postgres.sh start DIR prints one)"
        )
    }

    static var logger: Logger {
        Logger(label: "tidings.postgres.test", logLevel: .warning, sink: CapturingLogSink())
    }

    /// Runs `body` with a client on a fresh database.
    static func withDatabase<T>(
        configure: (inout PostgresConfiguration) -> Void = { _ in },
        metrics: MetricsRegistry? = nil,
        _ body: (PostgresClient) throws -> T
    ) throws -> T {
        try withDatabaseURL { url in
            var configuration = PostgresConfiguration(connectionString: url)
            configure(&configuration)
            let client = PostgresClient(configuration: configuration, logger: logger, metrics: metrics)
            defer { client.stop() }
            return try body(client)
        }
    }

    /// Runs `body` with the connection URL of a fresh database.
    static func withDatabaseURL<T>(_ body: (String) throws -> T) throws -> T {
        let serverURL = try serverURL()
        let name = "tidings_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: serverURL, maxConnections: 1), logger: logger)
        defer { admin.stop() }
        _ = try admin.query("CREATE DATABASE \(unsafeSQL: name)")
        defer { _ = try? admin.query("DROP DATABASE IF EXISTS \(unsafeSQL: name) WITH (FORCE)") }
        return try body(try url(serverURL, database: name))
    }

    /// The server URL with its path (the database name) replaced.
    private static func url(_ serverURL: String, database: String) throws -> String {
        let schemeEnd = try #require(serverURL.range(of: "://"), "\(environmentVariable) must be a postgresql:// URL")
        let rest = serverURL[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let queryStart = rest[authorityEnd...].firstIndex(of: "?") ?? rest.endIndex
        return String(serverURL[..<authorityEnd]) + "/" + database + String(rest[queryStart...])
    }
}
