import Foundation
import Testing
import TidingsLocalPostgres
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// A private server in a temporary directory, restarted under a live pool.
@Suite struct LocalClusterRestartTests {
    static var logger: Logger {
        Logger(label: "tidings.postgres.test", logLevel: .warning, sink: CapturingLogSink())
    }

    @Test(.timeLimit(.minutes(3)))
    func nextRequestSucceedsAfterTheServerRestarts() throws {
        try TemporaryDirectory.with(prefix: "tidings-pg-restart") { directory in
            let cluster = LocalPostgresCluster(directory: directory, logger: Self.logger)
            try cluster.start()
            defer { try? cluster.stop() }
            #expect(cluster.connectionString == "postgresql://tidings@/tidings?host=\(directory)/run")

            let client = PostgresClient(
                configuration: PostgresConfiguration(connectionString: cluster.connectionString, maxConnections: 2),
                logger: Self.logger
            )
            defer { client.stop() }
            _ = try client.query("CREATE TABLE notes (body text)")
            _ = try client.query("INSERT INTO notes VALUES (\("kept"))")
            #expect(try client.query("SELECT current_database() AS name").first?.decode("name", as: String.self) == "tidings")
            // Autovacuum keeps up with the poller's writes (decision 0030).
            #expect(try client.query("SHOW autovacuum_naptime").first?.decode("autovacuum_naptime", as: String.self) == "5s")

            try cluster.restart()
            #expect(try client.query("SELECT body FROM notes").first?.decode("body", as: String.self) == "kept")
            #expect(client.statistics.totalCreated == 2)

            try cluster.stop()
            let error = try #require(throws: PostgresError.self) { try client.query("SELECT 1") }
            #expect(error.code == .connectionFailed)

            // Starting again reuses the existing data directory.
            try cluster.start()
            try cluster.start()
            #expect(try client.query("SELECT body FROM notes").first?.decode("body", as: String.self) == "kept")
            #expect(FileManager.default.fileExists(atPath: directory + "/postgres.log"))
        }
    }
}
