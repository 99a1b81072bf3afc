import FoundationEssentials

/// A flat row written into the JSON array that a batch statement reads with
/// `jsonb_to_recordset` (one bound parameter for the whole batch).
protocol JSONRow {
    func write(to row: inout JSONRows.Row)
}

/// The JSON text of a batch of flat rows, written by hand: the poller
/// writes one such array per batch of results, and JSONEncoder (through its
/// Encodable containers and boxing) was a tenth of the poller's CPU time at
/// thousands of checks per second. Only what the batch statements need:
/// strings, integers, doubles, booleans, UUIDs and nulls.
enum JSONRows {
    struct Row {
        fileprivate var text: String
        fileprivate var isFirst = true

        mutating func field(_ name: StaticString, _ value: String?) {
            key(name)
            guard let value else { return text += "null" }
            JSONRows.appendString(value, to: &text)
        }

        mutating func field(_ name: StaticString, _ value: Int?) {
            key(name)
            text += value.map(String.init) ?? "null"
        }

        mutating func field(_ name: StaticString, _ value: Double) {
            key(name)
            // Swift prints the shortest text that reads back as the same
            // double: digits, a point and an exponent, all valid JSON.
            text += value.isFinite ? value.description : "null"
        }

        mutating func field(_ name: StaticString, _ value: Bool) {
            key(name)
            text += value ? "true" : "false"
        }

        mutating func field(_ name: StaticString, _ value: UUID) {
            key(name)
            text += "\""
            text += value.uuidString
            text += "\""
        }

        private mutating func key(_ name: StaticString) {
            text += isFirst ? "{\"" : ",\""
            isFirst = false
            name.withUTF8Buffer { text += String(decoding: $0, as: UTF8.self) }
            text += "\":"
        }
    }

    static func text<Element: JSONRow>(_ rows: [Element]) -> String {
        // One Row accumulates the whole array; `isFirst` restarts per object.
        var row = Row(text: "[")
        row.text.reserveCapacity(rows.count * 160 + 2)
        for (index, element) in rows.enumerated() {
            if index > 0 { row.text += "," }
            row.isFirst = true
            element.write(to: &row)
            row.text += row.isFirst ? "{}" : "}"
        }
        row.text += "]"
        return row.text
    }

    /// A JSON string literal. NUL is dropped: PostgreSQL text cannot hold
    /// it and jsonb refuses `\u0000`.
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        let plain = value.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        if plain {
            text += value
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case "\0": continue
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
