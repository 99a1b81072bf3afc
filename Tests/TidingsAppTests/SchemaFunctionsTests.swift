import Foundation
import Testing
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// `schema/functions/` holds the one current text of every function and
/// trigger (decision 0049), whatever the migrations defined on the way.
@Suite struct SchemaFunctionsTests {
    private static let migrations = TestEnvironment.repositoryRoot + "/migrations"
    private static let functions = TestEnvironment.repositoryRoot + "/schema/functions"
    private let logger = Logger(label: "test", sink: CapturingLogSink())

    /// Every function and trigger of the public schema as PostgreSQL prints it.
    private func definitions(_ client: PostgresClient) throws -> [String] {
        let functions = try client.query(
            """
            SELECT pg_get_functiondef(p.oid) AS text FROM pg_proc p
            WHERE p.pronamespace = 'public'::regnamespace
            ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)
            """)
        let triggers = try client.query(
            """
            SELECT pg_get_triggerdef(t.oid) AS text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
            ORDER BY t.tgname
            """)
        return try (Array(functions) + Array(triggers)).map { try $0.decode("text", as: String.self) }
    }

    private func client() throws -> PostgresClient {
        PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.create()), logger: logger)
    }

    @Test func freshAndUpgradedDatabasesEndWithTheFilesText() throws {
        let fresh = try client()
        defer { fresh.stop() }
        _ = try MigrationRunner(directory: Self.migrations, functionsDirectory: Self.functions, client: fresh, logger: logger).migrate()

        // A database an older build migrated (no function files yet), halfway.
        let upgraded = try client()
        defer { upgraded.stop() }
        try TemporaryDirectory.with(prefix: "tidings-upgrade") { directory in
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.migrations).filter { $0.hasSuffix(".sql") && $0 < "0020" }
            for file in files {
                try FileManager.default.copyItem(atPath: Self.migrations + "/" + file, toPath: directory + "/" + file)
            }
            _ = try MigrationRunner(directory: directory, client: upgraded, logger: logger).migrate()
        }
        let applied = try MigrationRunner(directory: Self.migrations, functionsDirectory: Self.functions, client: upgraded, logger: logger)
            .migrate()
        #expect(applied.contains("record_changes.sql"))

        let expected = try definitions(fresh)
        #expect(expected.count > 40)
        #expect(try definitions(upgraded) == expected)
    }

    @Test func everyFunctionAndTriggerHasItsTextInAFile() throws {
        let database = try client()
        defer { database.stop() }
        // A function no file defines keeps a migration's text, found in no file.
        _ = try MigrationRunner(directory: Self.migrations, functionsDirectory: Self.functions, client: database, logger: logger).migrate()
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.functions).filter { $0.hasSuffix(".sql") }
        let text = try files.map { try String(contentsOfFile: Self.functions + "/" + $0, encoding: .utf8) }.joined(separator: "\n")

        let functions = try database.query(
            """
            SELECT p.proname AS name, p.prosrc AS body FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
            """)
        #expect(functions.count > 30)
        for row in functions {
            let name = try row.decode("name", as: String.self)
            let body = try row.decode("body", as: String.self)
            #expect(text.contains(body), "\(name) has no file in schema/functions/")
        }
        let triggers = try database.query(
            """
            SELECT t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
            """
        ).map { try $0.decode("name", as: String.self) }
        #expect(triggers.count > 15)
        for trigger in triggers {
            #expect(
                text.contains("CREATE OR REPLACE TRIGGER \(trigger)\n") || text.contains("CREATE OR REPLACE TRIGGER \(trigger) "),
                "\(trigger) has no file")
        }
    }
}
