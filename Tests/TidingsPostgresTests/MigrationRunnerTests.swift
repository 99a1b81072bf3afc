import Foundation
import Testing
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@Suite struct MigrationRunnerTests {
    @Test func appliesFilesInOrderOnce() throws {
        try TemporaryDirectory.with(prefix: "tidings-migrations") { directory in
            // Written out of order; 0002 depends on 0001 and 0010 sorts after 0002 by number.
            try TemporaryDirectory.write("INSERT INTO steps VALUES (2);", to: directory + "/0002_second.sql")
            try TemporaryDirectory.write("CREATE TABLE steps (n int); INSERT INTO steps VALUES (1);", to: directory + "/0001_first.sql")
            try TemporaryDirectory.write("INSERT INTO steps VALUES (10);", to: directory + "/0010_tenth.sql")
            try TemporaryDirectory.write("not a migration", to: directory + "/README.md")
            try TestDatabase.withDatabase { client in
                let runner = MigrationRunner(directory: directory, client: client, logger: TestDatabase.logger)
                #expect(try runner.pendingMigrations() == ["0001_first.sql", "0002_second.sql", "0010_tenth.sql"])
                #expect(try !runner.isUpToDate())

                #expect(try runner.migrate() == ["0001_first.sql", "0002_second.sql", "0010_tenth.sql"])
                #expect(try runner.migrate() == [])
                #expect(try runner.isUpToDate())
                let steps = try client.query("SELECT n FROM steps ORDER BY n").map { try $0.decode("n", as: Int.self) }
                #expect(steps == [1, 2, 10])

                let records = try client.query("SELECT version, name, checksum FROM tidings_schema_migrations ORDER BY version")
                #expect(try records.map { try $0.decode("version", as: Int.self) } == [1, 2, 10])
                let checksum = try records.first?.decode("checksum", as: String.self)
                #expect(checksum == Self.sha256Hex(of: directory + "/0001_first.sql"))

                try TemporaryDirectory.write("INSERT INTO steps VALUES (11);", to: directory + "/0011_eleventh.sql")
                #expect(try runner.pendingMigrations() == ["0011_eleventh.sql"])
                #expect(try runner.migrate() == ["0011_eleventh.sql"])
            }
        }
    }

    @Test func refusesAnEditedOrMissingAppliedFile() throws {
        try TemporaryDirectory.with(prefix: "tidings-migrations") { directory in
            try TemporaryDirectory.write("CREATE TABLE a (n int);", to: directory + "/0001_a.sql")
            try TemporaryDirectory.write("CREATE TABLE b (n int);", to: directory + "/0002_b.sql")
            try TestDatabase.withDatabase { client in
                let runner = MigrationRunner(directory: directory, client: client, logger: TestDatabase.logger)
                _ = try runner.migrate()

                try TemporaryDirectory.write("CREATE TABLE a (n int, m int);", to: directory + "/0001_a.sql")
                let edited = try #require(throws: PostgresError.self) { try runner.migrate() }
                #expect(edited.code == .migration)
                #expect(edited.message.contains("0001_a.sql"))
                #expect(throws: PostgresError.self) { try runner.isUpToDate() }

                try TemporaryDirectory.write("CREATE TABLE a (n int);", to: directory + "/0001_a.sql")
                try FileManager.default.removeItem(atPath: directory + "/0002_b.sql")
                let missing = try #require(throws: PostgresError.self) { try runner.migrate() }
                #expect(missing.code == .migration && missing.message.contains("0002_b.sql"))

                // The lock was released on those failure paths: another run gets it.
                try TemporaryDirectory.write("CREATE TABLE b (n int);", to: directory + "/0002_b.sql")
                #expect(try runner.migrate() == [])
            }
        }
    }

    @Test func failingFileIsRolledBackAndNotRecorded() throws {
        try TemporaryDirectory.with(prefix: "tidings-migrations") { directory in
            try TemporaryDirectory.write("CREATE TABLE good (n int);", to: directory + "/0001_good.sql")
            try TemporaryDirectory.write("CREATE TABLE half (n int); SELECT * FROM missing_table;", to: directory + "/0002_bad.sql")
            try TestDatabase.withDatabase { client in
                let runner = MigrationRunner(directory: directory, client: client, logger: TestDatabase.logger)
                let error = try #require(throws: PostgresError.self) { try runner.migrate() }
                #expect(error.code == .migration && error.sqlState == "42P01")
                #expect(error.message.contains("0002_bad.sql"))
                #expect(try runner.pendingMigrations() == ["0002_bad.sql"])
                let half = try client.query("SELECT to_regclass('half') IS NULL AS absent")
                #expect(try half.first?.decode("absent", as: Bool.self) == true)
            }
        }
    }

    @Test func misnamedFileIsAnError() throws {
        try TemporaryDirectory.with(prefix: "tidings-migrations") { directory in
            try TemporaryDirectory.write("SELECT 1;", to: directory + "/init.sql")
            try TestDatabase.withDatabase { client in
                let error = try #require(throws: PostgresError.self) {
                    try MigrationRunner(directory: directory, client: client, logger: TestDatabase.logger).migrate()
                }
                #expect(error.code == .migration && error.message.contains("init.sql"))
            }
        }
    }

    @Test func racingRunnersApplyEachFileExactlyOnce() throws {
        try TemporaryDirectory.with(prefix: "tidings-migrations") { directory in
            try TemporaryDirectory.write("CREATE TABLE runs (file text);", to: directory + "/0001_table.sql")
            // Slow enough that the second runner arrives while the first holds the lock.
            try TemporaryDirectory.write("SELECT pg_sleep(0.3); INSERT INTO runs VALUES ('0002');", to: directory + "/0002_slow.sql")
            try TemporaryDirectory.write("INSERT INTO runs VALUES ('0003');", to: directory + "/0003_last.sql")
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
                        let names = try MigrationRunner(directory: directory, client: clients[index], logger: TestDatabase.logger).migrate()
                        applied.withLock { $0 += names }
                    } catch {
                        failures.withLock { $0.append(String(reflecting: error)) }
                    }
                }
                #expect(finished)
                #expect(failures.withLock { $0 } == [])
                #expect(applied.withLock { $0 }.sorted() == ["0001_table.sql", "0002_slow.sql", "0003_last.sql"])
                let runs = try clients[0].query("SELECT file FROM runs ORDER BY file").map { try $0.decode("file", as: String.self) }
                #expect(runs == ["0002", "0003"])
            }
        }
    }

    static func sha256Hex(of path: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init)
    }
}
