public import FoundationEssentials
import TidingsCrypto
import TidingsSynchronization

extension String: PostgresEncodable {
    public var postgresText: String {
        self
    }
}

extension Int: PostgresEncodable {
    public var postgresText: String {
        String(self)
    }
}

extension Int32: PostgresEncodable {
    public var postgresText: String {
        String(self)
    }
}

extension Int64: PostgresEncodable {
    public var postgresText: String {
        String(self)
    }
}

extension Double: PostgresEncodable {
    /// Swift's shortest round-tripping form, with PostgreSQL's spellings of
    /// the special values.
    public var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Bool: PostgresEncodable {
    public var postgresText: String {
        self ? "t" : "f"
    }
}

extension UUID: PostgresEncodable {
    /// Lowercase, as PostgreSQL writes it.
    public var postgresText: String {
        String(unsafeUninitializedCapacity: Self.textLength) { writeText(into: $0) }
    }

    public func appendPostgresText(to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.textLength) { scratch in
            buffer.append(contentsOf: scratch.prefix(writeText(into: scratch)))
        }
    }

    private static let textLength = 36

    /// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" in lowercase hex at the start
    /// of `output`; its length. By hand: `uuidString` formats in uppercase
    /// through the C library, and the batches bind thousands.
    private func writeText(into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    output[position] = UInt8(ascii: "-")
                    position += 1
                }
                output[position] = digits.utf8Start[Int(byte >> 4)]
                output[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }
}

extension Duration: PostgresEncodable {
    /// An `interval` in whole milliseconds (saturating), bound as
    /// `\(duration)::interval`.
    public var postgresText: String {
        "\(inMilliseconds) milliseconds"
    }
}

extension Date: PostgresEncodable {
    /// ISO 8601 in UTC with microseconds, PostgreSQL's `timestamptz` precision.
    public var postgresText: String {
        PostgresTimestamp.format(self)
    }

    public func appendPostgresText(to buffer: inout [UInt8]) {
        PostgresTimestamp.append(self, to: &buffer)
    }
}

extension Array: PostgresEncodable where Element == UInt8 {
    /// `bytea` in hex format.
    public var postgresText: String {
        "\\x" + Hex.encode(self)
    }
}
