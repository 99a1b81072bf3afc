import Foundation
import Testing
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// The function files of `MigrationRunner`: applied after the migrations,
/// again whenever one changes, once across racing replicas.
@Suite struct FunctionFilesTests {
    private func answer(_ client: PostgresClient) throws -> Int {
        try client.query("SELECT answer() AS n").single().decode("n", as: Int.self)
    }

    @Test func changedFileAppliesAgainAndUnchangedFilesDoNot() throws {
        try TemporaryDirectory.with(prefix: "tidings-functions") { directory in
            try FileManager.default.createDirectory(atPath: directory + "/migrations", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory + "/functions", withIntermediateDirectories: true)
            try TemporaryDirectory.write("CREATE TABLE steps (n int);", to: directory + "/migrations/0001_steps.sql")
            // A SQL-language function is checked at creation: it needs the table first.
            try TemporaryDirectory.write(
                "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 1 + count(*)::int FROM steps';",
                to: directory + "/functions/answer.sql")
            try TemporaryDirectory.write(
                "CREATE OR REPLACE FUNCTION other() RETURNS int LANGUAGE sql AS 'SELECT 7';",
                to: directory + "/functions/other.sql")
            try TestDatabase.withDatabase { client in
                let runner = MigrationRunner(
                    directory: directory + "/migrations", functionsDirectory: directory + "/functions",
                    client: client, logger: TestDatabase.logger)
                #expect(try runner.migrate() == ["0001_steps.sql", "answer.sql", "other.sql"])
                #expect(try answer(client) == 1)
                #expect(try runner.migrate() == [])

                try TemporaryDirectory.write(
                    "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 40 + count(*)::int FROM steps';",
                    to: directory + "/functions/answer.sql")
                #expect(try runner.migrate() == ["answer.sql"])
                #expect(try answer(client) == 40)
                let recorded = try client.query("SELECT checksum FROM tidings_schema_functions WHERE name = 'answer.sql'")
                    .single().decode("checksum", as: String.self)
                #expect(recorded == MigrationRunnerTests.sha256Hex(of: directory + "/functions/answer.sql"))
                #expect(try runner.migrate() == [])

                // A file that goes and comes back applies again.
                try FileManager.default.removeItem(atPath: directory + "/functions/other.sql")
                #expect(try runner.migrate() == [])
                try TemporaryDirectory.write(
                    "CREATE OR REPLACE FUNCTION other() RETURNS int LANGUAGE sql AS 'SELECT 8';",
                    to: directory + "/functions/other.sql")
                #expect(try runner.migrate() == ["other.sql"])
                #expect(try client.query("SELECT other() AS n").single().decode("n", as: Int.self) == 8)
            }
        }
    }

    @Test func failingFileLeavesEveryDefinitionAndRecordAsItWas() throws {
        try TemporaryDirectory.with(prefix: "tidings-functions") { directory in
            try FileManager.default.createDirectory(atPath: directory + "/migrations", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory + "/functions", withIntermediateDirectories: true)
            try TemporaryDirectory.write("CREATE TABLE steps (n int);", to: directory + "/migrations/0001_steps.sql")
            try TemporaryDirectory.write(
                "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 1';", to: directory + "/functions/a.sql")
            try TestDatabase.withDatabase { client in
                let runner = MigrationRunner(
                    directory: directory + "/migrations", functionsDirectory: directory + "/functions",
                    client: client, logger: TestDatabase.logger)
                _ = try runner.migrate()
                try TemporaryDirectory.write(
                    "CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 2';", to: directory + "/functions/a.sql")
                try TemporaryDirectory.write(
                    "CREATE OR REPLACE FUNCTION broken() RETURNS int LANGUAGE sql AS 'SELECT n FROM missing_table';",
                    to: directory + "/functions/b.sql")
                let error = try #require(throws: PostgresError.self) { try runner.migrate() }
                #expect(error.code == .migration && error.sqlState == "42P01" && error.message.contains("b.sql"))
                #expect(try answer(client) == 1, "a.sql's new text went with b.sql's failure")
                let names = try client.query("SELECT name FROM tidings_schema_functions ORDER BY name")
                    .map { try $0.decode("name", as: String.self) }
                #expect(names == ["a.sql"])

                try FileManager.default.removeItem(atPath: directory + "/functions/b.sql")
                #expect(try runner.migrate() == ["a.sql"], "the lock was released on the failure path")
                #expect(try answer(client) == 2)
            }
        }
    }

    @Test func racingRunnersApplyAChangedFileOnce() throws {
        try TemporaryDirectory.with(prefix: "tidings-functions") { directory in
            try FileManager.default.createDirectory(atPath: directory + "/migrations", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory + "/functions", withIntermediateDirectories: true)
            try TemporaryDirectory.write("CREATE TABLE runs (file text);", to: directory + "/migrations/0001_table.sql")
            // Slow enough that the second runner arrives while the first holds the lock.
            try TemporaryDirectory.write(
                """
                SELECT pg_sleep(0.3);
                INSERT INTO runs VALUES ('answer.sql');
                CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 3';
                """, to: directory + "/functions/answer.sql")
            try TestDatabase.withDatabaseURL { url in
                let clients = (0..<2).map { _ in
                    PostgresClient(
                        configuration: PostgresConfiguration(connectionString: url, maxConnections: 2), logger: TestDatabase.logger)
                }
                defer { clients.forEach { $0.stop() } }
                let applied = AdaptiveMutex<[String]>([])
                let failures = AdaptiveMutex<[String]>([])
                let finished = ConcurrentThreads.run(count: 2) { index in
                    do {
                        let names = try MigrationRunner(
                            directory: directory + "/migrations", functionsDirectory: directory + "/functions",
                            client: clients[index], logger: TestDatabase.logger
                        ).migrate()
                        applied.withLock { $0 += names }
                    } catch {
                        failures.withLock { $0.append(String(reflecting: error)) }
                    }
                }
                #expect(finished)
                #expect(failures.withLock { $0 } == [])
                #expect(applied.withLock { $0 }.sorted() == ["0001_table.sql", "answer.sql"])
                let runs = try clients[0].query("SELECT file FROM runs").map { try $0.decode("file", as: String.self) }
                #expect(runs == ["answer.sql"])
                #expect(try answer(clients[0]) == 3)
            }
        }
    }
}
