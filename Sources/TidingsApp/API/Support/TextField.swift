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
