import Foundation
import Testing
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// Migration 0035 on a database that already holds watches: the counter
/// starts at each user's count, then follows inserts, deletes and the
/// cascade of a deleted user, and refuses past the limit.
@Suite struct WatchCountMigrationTests {
    @Test func theCounterStartsAtTheCountAndFollowsEveryWrite() throws {
        let migrations = TestEnvironment.repositoryRoot + "/migrations"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-0035-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try FileManager.default.contentsOfDirectory(atPath: migrations).filter { $0.hasSuffix(".sql") }.sorted()
        for file in files where file < "0035" {
            try FileManager.default.copyItem(atPath: migrations + "/" + file, toPath: directory + "/" + file)
        }
        let logger = Logger(label: "test", sink: CapturingLogSink())
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.create()), logger: logger)
        defer { client.stop() }
        _ = try MigrationRunner(directory: directory, client: client, logger: logger).migrate()

        let users = try (0..<3).map { index in
            try client.query("INSERT INTO users (name) VALUES (\("u\(index)")) RETURNING id").single().decode("id", as: UUID.self)
        }
        func addWatches(_ user: UUID, _ count: Int) throws {
            _ = try client.query(
                """
                WITH t AS (
                    INSERT INTO targets (url, headers_fingerprint)
                    SELECT 'https://93.184.215.14/' || gen_random_uuid(), repeat('0', 64) FROM generate_series(1, \(count))
                    RETURNING id
                )
                INSERT INTO watches (user_id, target_id, name, interval_seconds) SELECT \(user), id, 'w', 300 FROM t
                """)
        }
        try addWatches(users[0], 3)
        try addWatches(users[1], 1)

        for file in files where file >= "0035" {
            try FileManager.default.copyItem(atPath: migrations + "/" + file, toPath: directory + "/" + file)
        }
        _ = try MigrationRunner(directory: directory, client: client, logger: logger).migrate()
        func usage(_ user: UUID) throws -> Int {
            try client.query("SELECT user_usage(\(user), 'watches') AS n").single().decode("n", as: Int.self)
        }
        #expect(try users.map(usage) == [3, 1, 0])

        try addWatches(users[2], 2)
        try addWatches(users[0], 2)
        _ = try client.query("DELETE FROM watches WHERE id = (SELECT id FROM watches WHERE user_id = \(users[0]) LIMIT 1)")
        #expect(try users.map(usage) == [4, 1, 2])

        _ = try client.query("UPDATE users SET max_watches = 5 WHERE id = \(users[0])")
        try addWatches(users[0], 1)
        #expect(throws: PostgresError.self) { try addWatches(users[0], 1) }
        #expect(try usage(users[0]) == 5, "the refused statement counted nothing")

        _ = try client.query("DELETE FROM users WHERE id = \(users[1])")
        #expect(
            try client.query("SELECT count(*) AS n FROM user_watch_counts WHERE user_id = \(users[1])").single().decode("n", as: Int.self)
                == 0)
        let counted = try client.query(
            """
            SELECT count(*) AS n FROM user_watch_counts c
            WHERE c.watches <> (SELECT count(*) FROM watches w WHERE w.user_id = c.user_id)
            """
        ).single().decode("n", as: Int.self)
        #expect(counted == 0, "every counter matches the rows")
    }
}
