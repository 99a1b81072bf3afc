import Foundation
import Testing
import TidingsPostgres
import TidingsTestSupport

/// Values sent as parameters arrive intact and are never read as SQL.
@Suite struct QueryBindingTests {
    @Test func everyTypeRoundTripsThroughItsColumnType() throws {
        try TestDatabase.withDatabase { client in
            _ = try client.query(
                """
                CREATE TABLE samples (
                    id serial PRIMARY KEY, text_value text, int_value int8, int32_value int4, double_value float8,
                    bool_value bool, uuid_value uuid, date_value timestamptz, bytes_value bytea
                )
                """)
            let uuid = UUID()
            let date = Date(timeIntervalSince1970: 1_795_965_576.123456)
            let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xff]
            let text = "Grüße, 世界 🚀 it's \"quoted\" \\ back\\slash $1"
            try client.withConnection { connection in
                let inserted = try connection.execute(
                    """
                    INSERT INTO samples (text_value, int_value, int32_value, double_value, bool_value, uuid_value, date_value, bytes_value)
                    VALUES (\(text), \(Int.max), \(Int32.min), \(-1.5e-10), \(true), \(uuid), \(date), \(bytes))
                    """)
                #expect(inserted == 1)
            }

            let row = try #require(try client.query("SELECT * FROM samples").first)
            #expect(try row.decode("text_value", as: String.self) == text)
            #expect(try row.decode("int_value", as: Int.self) == .max)
            #expect(try row.decode("int32_value", as: Int32.self) == .min)
            #expect(try row.decode("double_value", as: Double.self) == -1.5e-10)
            #expect(try row.decode("bool_value", as: Bool.self) == true)
            #expect(try row.decode("uuid_value", as: UUID.self) == uuid)
            #expect(abs(try row.decode("date_value", as: Date.self).timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
            #expect(try row.decode("bytes_value", as: [UInt8].self) == bytes)
            #expect(try row.decode("id", as: Int64.self) == 1)
        }
    }

    @Test func nilBindsNullAndOptionalDecodesItAsNil() throws {
        try TestDatabase.withDatabase { client in
            let missing: String? = nil
            let present: Int? = 5
            let row = try #require(
                try client.query("SELECT \(missing)::text AS a, \(present)::int AS b, \(missing)::text IS NULL AS was_null").first)
            #expect(try row.decode("a", as: String?.self) == nil)
            #expect(try row.decode("b", as: Int?.self) == 5)
            #expect(try row.decode("was_null", as: Bool.self))
        }
    }

    @Test func injectionAttemptStaysData() throws {
        try TestDatabase.withDatabase { client in
            _ = try client.query("CREATE TABLE users (name text)")
            let hostile = "x'); DROP TABLE users; --"
            try client.withConnection { connection in
                try connection.execute("INSERT INTO users (name) VALUES (\(hostile))")
            }
            let rows = try client.query("SELECT name FROM users WHERE name = \(hostile)")
            #expect(rows.count == 1)
            #expect(try rows.first?.decode("name", as: String.self) == hostile)
        }
    }

    @Test func sameStatementRunsRepeatedlyWithDifferentValues() throws {
        try TestDatabase.withDatabase { client in
            try client.withConnection { connection in
                for value in 0..<300 {
                    let row = try #require(try connection.query("SELECT \(value)::int * 2 AS doubled").first)
                    #expect(try row.decode("doubled", as: Int.self) == value * 2)
                }
                // More distinct statements than the prepared-statement cache holds still run.
                for value in 0..<300 {
                    let row = try #require(try connection.query("SELECT \(value)::int + \(unsafeSQL: String(value)) AS sum").first)
                    #expect(try row.decode("sum", as: Int.self) == value * 2)
                }
            }
        }
    }

    @Test func nulCharacterInAValueIsRejectedNotTruncated() throws {
        try TestDatabase.withDatabase { client in
            let error = try #require(throws: PostgresError.self) { try client.query("SELECT \("a\u{0}b") AS value") }
            #expect(error.sqlState == "22021")
        }
    }

    @Test func unsafeSQLRunsSeveralStatements() throws {
        try TestDatabase.withDatabase { client in
            try client.withConnection { connection in
                try connection.execute(unsafeSQL: "CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2);")
                let affected = try connection.execute("UPDATE t SET n = n + 1")
                #expect(affected == 2)
                let rows = try connection.query("SELECT n FROM t ORDER BY n")
                #expect(rows.columns == ["n"])
                #expect(try rows.map { try $0.decode("n", as: Int.self) } == [2, 3])
                #expect(rows.affectedRows == 2)
            }
        }
    }
}
