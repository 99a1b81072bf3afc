import FoundationEssentials
import TidingsPostgres

/// Builds `{"a","b",NULL}` array literals, so a batch of rows travels as a
/// few array parameters (unnest) instead of one statement per row. Every
/// element is double-quoted with `"` and `\` escaped, which is correct for
/// any element type's text form. Every store builds its arrays here.
enum PostgresArrayLiteral {
    /// `droppingNUL` leaves NUL characters out, as `JSONRows` does for the
    /// text it writes (PostgreSQL text cannot hold them); otherwise an
    /// element with one fails the statement.
    static func make(_ elements: [String?], droppingNUL: Bool = false) -> String {
        // Bytes, not characters: snapshots make batches of megabytes, and no
        // byte of a multi-byte UTF-8 sequence is `"`, `\` or NUL.
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (index, element) in elements.enumerated() {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            guard let element else {
                literal.append(contentsOf: "NULL".utf8)
                continue
            }
            literal.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == 0 && droppingNUL { continue }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                literal.append(byte)
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }

    /// `{a,b}`: a uuid's text needs no quoting.
    static func make(_ ids: [UUID]) -> String {
        "{" + ids.map(\.postgresText).joined(separator: ",") + "}"
    }
}
