import FoundationEssentials
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
        self = try decodeText(postgresText, as: UUID.self) { UUID(uuidString: $0) }
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
