import Foundation
package import TidingsObservability
package import TidingsPostgres
import TidingsSynchronization

/// Fresh databases on the throwaway PostgreSQL that scripts/run-tests.sh
/// starts (TIDINGS_TEST_DATABASE_URL): one per test, so tests never see
/// each other's rows.
package enum TestDatabase {
    package struct NotConfigured: Error, CustomStringConvertible {
        package var description: String {
            "TIDINGS_TEST_DATABASE_URL is not set: run the tests with `make test` (or scripts/run-tests.sh)"
        }
    }

    /// The server's URL, from the environment.
    package static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TIDINGS_TEST_DATABASE_URL"], !url.isEmpty else {
            throw NotConfigured()
        }
        return url
    }

    /// Creates an empty database named `<prefix>_<random>` and returns its URL.
    package static func create(prefix: String = "tidings_test") throws -> String {
        let base = try serverURL()
        let name = "\(prefix)_\(UInt64.random(in: 0...UInt64.max))"
        let admin = PostgresClient(
            configuration: PostgresConfiguration(connectionString: base, maxConnections: 1),
            logger: Logger(label: "test", logLevel: .error, sink: CapturingLogSink())
        )
        defer { admin.stop() }
        try admin.withConnection { try $0.execute(unsafeSQL: "CREATE DATABASE \(name)") }
        guard var components = URLComponents(string: base) else { throw NotConfigured() }
        components.path = "/" + name
        guard let url = components.string else { throw NotConfigured() }
        return url
    }

    /// A logger for test clients that keeps their lines out of the output.
    package static var logger: Logger {
        Logger(label: "tidings.postgres.test", logLevel: .warning, sink: CapturingLogSink())
    }

    /// Runs `body` with the URL of a fresh database, dropped afterwards.
    package static func withDatabaseURL<T>(_ body: (String) throws -> T) throws -> T {
        let url = try create()
        defer { drop(url) }
        return try body(url)
    }

    /// Runs `body` with a client on a fresh database, dropped afterwards.
    package static func withDatabase<T>(
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

    /// Drops a database `create` made, closing what is still connected to it.
    private static func drop(_ url: String) {
        guard let base = try? serverURL(), let name = URLComponents(string: url)?.path.dropFirst(), !name.isEmpty else { return }
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: base, maxConnections: 1), logger: logger)
        defer { admin.stop() }
        _ = try? admin.withConnection { try $0.execute(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }
}
