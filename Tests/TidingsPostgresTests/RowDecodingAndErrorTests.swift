import Testing
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// Decoding failures and server errors say clearly what went wrong.
@Suite struct RowDecodingAndErrorTests {
    @Test func decodingErrorsNameTheColumn() throws {
        try TestDatabase.withDatabase { client in
            let row = try #require(try client.query("SELECT 'abc' AS word, NULL::int AS nothing").first)

            let wrongType = try #require(throws: PostgresError.self) { try row.decode("word", as: Int.self) }
            #expect(wrongType.code == .decoding)
            #expect(wrongType.message.contains("\"word\""))

            let null = try #require(throws: PostgresError.self) { try row.decode("nothing", as: Int.self) }
            #expect(null.code == .decoding)
            #expect(null.message.contains("\"nothing\"") && null.message.contains("NULL"))

            let unknown = try #require(throws: PostgresError.self) { try row.decode("absent", as: String.self) }
            #expect(unknown.message.contains("\"absent\""))
        }
    }

    @Test func duplicateColumnNamesReadTheFirstInNarrowAndWideResults() throws {
        try TestDatabase.withDatabase { client in
            let narrow = try #require(try client.query("SELECT 1 AS n, 2 AS n, 3 AS m").first)
            #expect(try narrow.decode("n", as: Int.self) == 1)
            #expect(try narrow.decode("m", as: Int.self) == 3)

            // Enough columns that names are looked up in a table, not scanned.
            let columns = (1...12).map { "\($0) AS c\($0)" }.joined(separator: ", ")
            let wide = try #require(try client.query(PostgresQuery(unsafeSQL: "SELECT \(columns), 99 AS c3")).first)
            #expect(wide.columns.count == 13)
            #expect(try wide.decode("c3", as: Int.self) == 3)
            #expect(try wide.decode("c12", as: Int.self) == 12)
            let unknown = try #require(throws: PostgresError.self) { try wide.decode("c13", as: Int.self) }
            #expect(unknown.code == .decoding)
        }
    }

    @Test func uniqueViolationCarriesItsSQLState() throws {
        try TestDatabase.withDatabase { client in
            _ = try client.query("CREATE TABLE accounts (email text PRIMARY KEY)")
            _ = try client.query("INSERT INTO accounts VALUES (\("a@example.com"))")
            let error = try #require(throws: PostgresError.self) {
                try client.query("INSERT INTO accounts VALUES (\("a@example.com"))")
            }
            #expect(error.code == .server)
            #expect(error.sqlState == "23505")
            #expect(error.isUniqueViolation)
            #expect(error.description == "PostgresError.server (SQLSTATE 23505)")
            #expect(error.debugDescription.contains("a@example.com"))
            // The failed statement did not break the pooled connection.
            #expect(try client.query("SELECT count(*) AS n FROM accounts").first?.decode("n", as: Int.self) == 1)
        }
    }

    @Test func syntaxErrorIsAServerError() throws {
        try TestDatabase.withDatabase { client in
            let error = try #require(throws: PostgresError.self) { try client.query("SELEC 1") }
            #expect(error.code == .server && error.sqlState == "42601")
        }
    }

    @Test func unreachableServerFailsToConnect() throws {
        let client = PostgresClient(
            configuration: PostgresConfiguration(connectionString: "postgresql://tidings@/postgres?host=/nonexistent-socket-dir"),
            logger: TestDatabase.logger
        )
        defer { client.stop() }
        let error = try #require(throws: PostgresError.self) { try client.query("SELECT 1") }
        #expect(error.code == .connectionFailed)
        #expect(client.statistics.inUse == 0)
    }
}
