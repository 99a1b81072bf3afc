import FoundationEssentials

/// A parsed JSON document. Integers that fit `Int64` are kept exact; other
/// numbers are `Double`. A number is an integer by value, not by spelling:
/// `100`, `100.0` and `1e2` are all `.integer(100)`, so the canonical text
/// (which writes integers without a fraction or exponent) reads back as the
/// same value.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `bytes` as JSON (UTF-8; any top-level value).
    package init(parsing bytes: [UInt8]) throws {
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw ExtractionError(code: .invalidJSON, message: "the body is not valid JSON")
        }
    }
}

extension JSONValue: Decodable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = Int64(exactly: value).map(JSONValue.integer) ?? .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
