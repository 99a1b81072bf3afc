import Testing
import TidingsPostgres
import TidingsTestSupport

@Suite struct TransactionTests {
    struct Abort: Error {}

    @Test func commitsOnSuccessAndRollsBackOnThrow() throws {
        try TestDatabase.withDatabase(configure: { $0.maxConnections = 1 }) { client in
            _ = try client.query("CREATE TABLE ledger (amount int)")
            let result = try client.withTransaction { connection in
                try connection.execute("INSERT INTO ledger VALUES (\(10))")
                return "done"
            }
            #expect(result == "done")

            #expect(throws: Abort.self) {
                try client.withTransaction { connection in
                    try connection.execute("INSERT INTO ledger VALUES (\(20))")
                    throw Abort()
                }
            }
            let rows = try client.query("SELECT amount FROM ledger")
            #expect(try rows.map { try $0.decode("amount", as: Int.self) } == [10])
            #expect(client.statistics.totalCreated == 1)
        }
    }

    @Test func failedStatementInsideTransactionRollsBackAndConnectionStaysUsable() throws {
        try TestDatabase.withDatabase(configure: { $0.maxConnections = 1 }) { client in
            _ = try client.query("CREATE TABLE items (id int PRIMARY KEY)")
            let error = try #require(throws: PostgresError.self) {
                try client.withTransaction { connection in
                    try connection.execute("INSERT INTO items VALUES (\(1))")
                    try connection.execute("INSERT INTO items VALUES (\(1))")
                }
            }
            #expect(error.isUniqueViolation)
            #expect(try client.query("SELECT count(*) AS n FROM items").first?.decode("n", as: Int.self) == 0)
        }
    }

    @Test func commitOfAnAbortedTransactionThrows() throws {
        try TestDatabase.withDatabase(configure: { $0.maxConnections = 1 }) { client in
            _ = try client.query("CREATE TABLE items (id int PRIMARY KEY)")
            let error = try #require(throws: PostgresError.self) {
                try client.withTransaction { connection in
                    try connection.execute("INSERT INTO items VALUES (\(1))")
                    // The body swallows a failure; the transaction is aborted all the same.
                    _ = try? connection.execute("INSERT INTO items VALUES (\(1))")
                }
            }
            #expect(error.sqlState == "25P02")
            #expect(try client.query("SELECT count(*) AS n FROM items").first?.decode("n", as: Int.self) == 0)
        }
    }

    @Test func transactionLeftOpenByALeaseIsRolledBackAtRelease() throws {
        try TestDatabase.withDatabase(configure: { $0.maxConnections = 1 }) { client in
            _ = try client.query("CREATE TABLE items (id int)")
            try client.withConnection { connection in
                try connection.execute(unsafeSQL: "BEGIN")
                try connection.execute("INSERT INTO items VALUES (\(1))")
            }
            #expect(try client.query("SELECT count(*) AS n FROM items").first?.decode("n", as: Int.self) == 0)
            #expect(client.statistics.totalCreated == 1)
        }
    }
}
