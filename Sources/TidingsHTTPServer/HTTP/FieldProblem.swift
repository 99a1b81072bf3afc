import FoundationEssentials

/// A problem with one field of a JSON request body, raised while decoding
/// (unknown field, value out of range, bad enum value). `decodeJSON` turns it
/// into 422 with the detail "<field path>: <message>".
package struct FieldProblem: Error, Sendable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}

/// Any-string coding key, for reading the keys a client actually sent.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

extension Decoder {
    /// Throws a `FieldProblem` for the first key of this object that `Key`
    /// does not declare, so a misspelt field is an error rather than ignored.
    package func rejectUnknownFields<Key: CodingKey>(_ keys: Key.Type) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        // The alphabetically first unknown key, found without sorting the
        // keys of every (valid) body.
        let unknown = container.allKeys.filter { Key(stringValue: $0.stringValue) == nil }
        if let key = unknown.min(by: { $0.stringValue < $1.stringValue }) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription: "unknown field",
                    underlyingError: FieldProblem("is not a known field")
                ))
        }
    }
}

extension KeyedDecodingContainer {
    /// An optional field the contract gives no null: nil when absent, a
    /// problem naming `key` when null. (`decodeIfPresent` takes null for
    /// absent, which accepts bodies openapi.yaml calls invalid.)
    package func decodeUnlessAbsent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) { throw fieldProblem(key, "must not be null") }
        return try decode(type, forKey: key)
    }

    /// One of a closed set of names (`Choice`'s raw values); anything else
    /// is a problem naming `key` and listing the names.
    package func decodeChoice<Choice: RawRepresentable<String> & CaseIterable>(_ type: Choice.Type, forKey key: Key) throws -> Choice {
        let raw = try decode(String.self, forKey: key)
        guard let choice = Choice(rawValue: raw) else {
            throw fieldProblem(key, "must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    /// `decodeChoice` for an optional field the contract gives no null.
    package func decodeChoiceUnlessAbsent<Choice: RawRepresentable<String> & CaseIterable>(_ type: Choice.Type, forKey key: Key) throws
        -> Choice?
    {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) { throw fieldProblem(key, "must not be null") }
        return try decodeChoice(type, forKey: key)
    }

    /// An integer field, or nil when absent. A number that is not a whole
    /// `Int` (a fraction, 1e300, 2^64) is a problem naming `key`:
    /// `JSONDecoder` throws an internal error for it, which surfaces without
    /// a path, as if the body were not JSON.
    package func decodeIntegerIfPresent(forKey key: Key) throws -> Int? {
        do {
            return try decodeUnlessAbsent(Int.self, forKey: key)
        } catch  where (try? decodeIfPresent(Double.self, forKey: key)) != nil {
            throw fieldProblem(key, "must be a whole number from \(Int.min) to \(Int.max)")
        }
    }

    /// A `DecodingError` carrying a client-facing message about `key`.
    package func fieldProblem(_ key: Key, _ message: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: codingPath + [key],
                debugDescription: message,
                underlyingError: FieldProblem(message)
            ))
    }
}
