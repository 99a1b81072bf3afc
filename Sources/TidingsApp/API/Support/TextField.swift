import TidingsHTTPServer

/// Rules shared by free-text fields: not blank, bounded, no control characters.
enum TextField {
    static func validate<Key: CodingKey>(
        _ value: String,
        key: Key,
        in container: KeyedDecodingContainer<Key>,
        maxLength: Int
    ) throws {
        if value.trimmingWhitespace().isEmpty {
            throw container.fieldProblem(key, "must not be empty")
        }
        // Unicode scalars, as PostgreSQL's char_length counts in CHECK constraints.
        if value.unicodeScalars.count > maxLength {
            throw container.fieldProblem(key, "must be at most \(maxLength) characters")
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw container.fieldProblem(key, "must not contain control characters")
        }
    }
}

extension TextField {
    /// An optional text field: nil when absent or null, else the text after
    /// `validate` accepted it.
    static func decodeOptional<Key: CodingKey>(
        _ key: Key,
        in container: KeyedDecodingContainer<Key>,
        validate: (String) throws -> Void
    ) throws -> String? {
        let value = try container.decodeIfPresent(String.self, forKey: key)
        if let value { try validate(value) }
        return value
    }

    /// A clearable text field of a PATCH body: nil when absent (leave it),
    /// `.some(nil)` for an explicit null (clear it), else the validated text.
    static func decodeClearable<Key: CodingKey>(
        _ key: Key,
        in container: KeyedDecodingContainer<Key>,
        validate: (String) throws -> Void
    ) throws -> String?? {
        guard container.contains(key) else { return nil }
        return .some(try decodeOptional(key, in: container, validate: validate))
    }
}
