/// A batch as one array parameter, `{"a","b",NULL}`, bound as
/// `\(PostgresArray(ids))::uuid[]`: the rows of a batch travel as a few
/// parallel arrays (read with `unnest`, or `= ANY`) instead of one
/// statement per row. The one way batches reach SQL.
///
/// Every element is its `postgresText` double-quoted with `"` and `\`
/// escaped, which is right for any element type's text form; nil is NULL.
/// NUL characters are left out: PostgreSQL text cannot hold them, and a
/// bound value with one is refused (upstream text, such as a page's
/// snapshot, may carry them).
package struct PostgresArray: PostgresEncodable {
    package let postgresText: String

    package init<Element: PostgresEncodable>(_ elements: [Element]) {
        self.init(texts: elements.map { Optional($0.postgresText) })
    }

    package init<Element: PostgresEncodable>(_ elements: [Element?]) {
        self.init(texts: elements.map { $0?.postgresText })
    }

    private init(texts: [String?]) {
        // Bytes, not characters: snapshots make batches of megabytes, and no
        // byte of a multi-byte UTF-8 sequence is `"`, `\` or NUL.
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(texts.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (index, text) in texts.enumerated() {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            guard let text else {
                literal.append(contentsOf: "NULL".utf8)
                continue
            }
            literal.append(UInt8(ascii: "\""))
            for byte in text.utf8 where byte != 0 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                literal.append(byte)
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        postgresText = String(decoding: literal, as: UTF8.self)
    }
}
