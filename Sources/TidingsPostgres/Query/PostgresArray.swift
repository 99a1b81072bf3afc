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
///
/// Elements write their text straight into the literal
/// (`appendPostgresText`), and the initializers are inlinable so that
/// happens without a witness table per element: the poller's writers
/// build twenty of these per batch.
public struct PostgresArray: PostgresEncodable {
    public let postgresText: String

    @inlinable package init<Element: PostgresEncodable>(_ elements: [Element]) {
        var literal = Literal(capacity: elements.count * 40)
        for element in elements { literal.append(element) }
        self.init(literal: literal)
    }

    @inlinable package init<Element: PostgresEncodable>(_ elements: [Element?]) {
        var literal = Literal(capacity: elements.count * 40)
        for element in elements { literal.append(element) }
        self.init(literal: literal)
    }

    @usableFromInline init(literal: consuming Literal) {
        postgresText = literal.finish()
    }

    /// The literal's UTF-8 as it is built. Bytes, not characters:
    /// snapshots make batches of megabytes, and no byte of a multi-byte
    /// UTF-8 sequence is `"`, `\` or NUL.
    @usableFromInline struct Literal {
        @usableFromInline var bytes: [UInt8]

        @inlinable init(capacity: Int) {
            bytes = [UInt8(ascii: "{")]
            bytes.reserveCapacity(capacity + 2)
        }

        @inlinable mutating func append<Element: PostgresEncodable>(_ element: Element?) {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            guard let element else {
                bytes.append(contentsOf: "NULL".utf8)
                return
            }
            bytes.append(UInt8(ascii: "\""))
            let start = bytes.count
            element.appendPostgresText(to: &bytes)
            escape(from: start)
            bytes.append(UInt8(ascii: "\""))
        }

        /// Escapes `"` and `\` and drops NUL in the element text from
        /// `start` on; most texts have none, and are only scanned.
        @usableFromInline mutating func escape(from start: Int) {
            guard let first = bytes[start...].firstIndex(where: Self.needsEscape) else { return }
            let tail = bytes[first...]
            bytes.removeSubrange(first...)
            for byte in tail where byte != 0 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
        }

        private static func needsEscape(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0
        }

        @usableFromInline consuming func finish() -> String {
            bytes.append(UInt8(ascii: "}"))
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
