import Foundation
import Testing
import TidingsPostgres
import TidingsTestSupport

/// Batches reach SQL as `PostgresArray` parameters: every element must
/// read back in PostgreSQL exactly as written (NUL aside, which text
/// cannot hold).
@Suite struct PostgresArrayTests {
    @Test func textElementsReadBackAsWritten() throws {
        let texts: [String?] = [
            "plain", "", "NULL", nil, "quote \" backslash \\ comma , braces {} space  ", "newline \n tab \t bell \u{7}",
            "é 😀 中文", "nul \0 inside", String(repeating: "x\"\\", count: 10_000),
        ]
        try TestDatabase.withDatabase { client in
            let rows = try client.query(
                """
                SELECT t.text, t.text IS NULL AS missing FROM unnest(\(PostgresArray(texts))::text[]) WITH ORDINALITY AS t(text, n) ORDER BY n
                """)
            #expect(rows.count == texts.count)
            for (row, expected) in zip(rows, texts) {
                #expect(try row.decode("missing", as: Bool.self) == (expected == nil))
                #expect(try row.decode("text", as: String?.self) == expected?.replacingOccurrences(of: "\0", with: ""))
            }
        }
    }

    @Test func typedElementsAndEmptyArrays() throws {
        let ids = [UUID(), UUID()]
        let date = Date(timeIntervalSince1970: 1_795_965_576.123456)
        try TestDatabase.withDatabase { client in
            let row = try client.query(
                """
                SELECT \(PostgresArray(ids))::uuid[] = ARRAY[\(ids[0])::uuid, \(ids[1])::uuid] AS ids_match,
                       (\(PostgresArray([1, nil, -3] as [Int?]))::bigint[])::text AS numbers,
                       (\(PostgresArray([true, false]))::boolean[])::text AS flags,
                       (\(PostgresArray([date]))::timestamptz[])[1] AS moment,
                       cardinality(\(PostgresArray([UUID]()))::uuid[]) AS empty
                """
            ).single()
            #expect(try row.decode("ids_match", as: Bool.self))
            #expect(try row.decode("numbers", as: String.self) == "{1,NULL,-3}")
            #expect(try row.decode("flags", as: String.self) == "{t,f}")
            #expect(abs(try row.decode("moment", as: Date.self).timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
            #expect(try row.decode("empty", as: Int.self) == 0)
        }
    }
}
