public import FoundationEssentials
import TidingsCrypto

extension String: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = postgresText
    }
}

extension Int: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: Int.self) { Int($0) }
    }
}

extension Int32: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: Int32.self) { Int32($0) }
    }
}

extension Int64: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: Int64.self) { Int64($0) }
    }
}

extension Double: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: Double.self) { text in
            switch text {
            case "NaN": .nan
            case "Infinity": .infinity
            case "-Infinity": -.infinity
            default: Double(text)
            }
        }
    }
}

extension Bool: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: Bool.self) { text in
            switch text {
            case "t", "true": true
            case "f", "false": false
            default: nil
            }
        }
    }
}

extension UUID: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: UUID.self) { parseCanonicalUUID($0) ?? UUID(uuidString: $0) }
    }
}

/// PostgreSQL prints every uuid as 36 lower-case characters (8-4-4-4-12);
/// reading that shape by hand skips Foundation's `sscanf`-based parser,
/// which showed in the profile of every request that reads a row. Anything
/// else is left to Foundation.
private func parseCanonicalUUID(_ text: String) -> UUID? {
    var text = text
    return text.withUTF8 { utf8 -> UUID? in
        guard utf8.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
            var position = 0
            for index in 0..<16 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard utf8[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = lowerHexValue(utf8[position]), let low = lowerHexValue(utf8[position + 1]) else { return false }
                output[index] = high << 4 | low
                position += 2
            }
            return true
        }
        return parsed ? UUID(uuid: bytes) : nil
    }
}

private func lowerHexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
}

extension Date: PostgresDecodable {
    /// Reads `timestamptz` (and `timestamp`, taken as UTC) in PostgreSQL's ISO output style.
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: Date.self) { PostgresTimestamp.parse($0) }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// Reads `bytea` in hex output format ("\x0aff").
    public init(postgresText: String) throws(PostgresError) {
        self = try decodeText(postgresText, as: [UInt8].self) { text in
            guard text.hasPrefix("\\x") else { return nil }
            return Hex.decode(String(text.dropFirst(2)))
        }
    }
}

private func decodeText<Value>(_ text: String, as type: Value.Type, _ parse: (String) -> Value?) throws(PostgresError) -> Value {
    guard let value = parse(text) else {
        throw PostgresError(code: .decoding, message: "\(text.debugDescription.prefix(80)) is not a valid \(Value.self)")
    }
    return value
}
