import Foundation
import Testing
@testable import TidingsDomain

/// The hand-written JSON of batch writes must read back exactly as written
/// (PostgreSQL parses it with jsonb_to_recordset).
@Suite struct JSONRowsTests {
    private struct Sample: JSONRow {
        let id: UUID
        let text: String?
        let count: Int?
        let time: Double
        let flag: Bool

        func write(to row: inout JSONRows.Row) {
            row.field("id", id)
            row.field("text", text)
            row.field("count", count)
            row.field("time", time)
            row.field("flag", flag)
        }
    }

    @Test func rowsReadBackAsWritten() throws {
        let id = UUID()
        let rows = [
            Sample(id: id, text: "plain", count: 3, time: 1_796_039_485.656546, flag: true),
            Sample(id: id, text: "quote \" backslash \\ newline \n tab \t bell \u{7} nul \0 é 😀", count: nil, time: -0.5, flag: false),
            Sample(id: id, text: nil, count: Int.max, time: 0, flag: true),
        ]
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(JSONRows.text(rows).utf8)) as? [[String: Any]])
        #expect(parsed.count == 3)
        #expect(parsed[0]["id"] as? String == id.uuidString.lowercased())
        #expect(parsed[0]["text"] as? String == "plain")
        #expect((parsed[0]["time"] as? NSNumber)?.doubleValue == 1_796_039_485.656546)
        #expect(parsed[1]["text"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7} nul  é 😀")
        #expect(parsed[1]["count"] is NSNull)
        #expect((parsed[1]["flag"] as? NSNumber)?.boolValue == false)
        #expect(parsed[2]["text"] is NSNull)
        #expect((parsed[2]["count"] as? NSNumber)?.intValue == Int.max)
        #expect(JSONRows.text([Sample]()) == "[]")
    }
}
