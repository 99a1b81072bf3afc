import FoundationEssentials
import TidingsJSON

/// A flat row written into the JSON array that a batch statement reads with
/// `jsonb_to_recordset` (one bound parameter for the whole batch).
protocol JSONRow {
    func write(to row: inout JSONRows.Row)
}

/// The JSON text of a batch of flat rows: the poller writes one such array
/// per batch of results, and JSONEncoder (through its Encodable containers
/// and boxing) was a tenth of the poller's CPU time at thousands of checks
/// per second. NUL is dropped from strings: PostgreSQL's jsonb refuses
/// `\u0000`.
enum JSONRows {
    struct Row {
        fileprivate var writer: JSONWriter

        mutating func field(_ name: StaticString, _ value: String?) {
            writer.key(name)
            writer.value(value)
        }

        mutating func field(_ name: StaticString, _ value: Int?) {
            writer.key(name)
            writer.value(value)
        }

        mutating func field(_ name: StaticString, _ value: Double) {
            writer.key(name)
            writer.value(value)
        }

        mutating func field(_ name: StaticString, _ value: Bool) {
            writer.key(name)
            writer.value(value)
        }

        mutating func field(_ name: StaticString, _ value: UUID) {
            writer.key(name)
            writer.value(value)
        }
    }

    static func text<Element: JSONRow>(_ rows: [Element]) -> String {
        var row = Row(writer: JSONWriter(capacity: rows.count * 160 + 2, nul: .drop))
        row.writer.beginArray()
        for element in rows {
            row.writer.beginObject()
            element.write(to: &row)
            row.writer.endObject()
        }
        row.writer.endArray()
        return row.writer.text
    }
}
