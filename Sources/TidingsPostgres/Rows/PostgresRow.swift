/// One row of a `PostgresRows`, read by column name.
public struct PostgresRow: Sendable {
    @usableFromInline let storage: PostgresRows.Storage
    @usableFromInline let row: Int

    init(storage: PostgresRows.Storage, row: Int) {
        self.storage = storage
        self.row = row
    }

    package var columns: [String] {
        storage.columns
    }

    /// The column's value as `T`. An `Optional` type reads NULL as nil; any
    /// other type throws `.decoding` for NULL. Errors name the column.
    /// Inlinable, so each call site reads its type without a witness table
    /// (row decoding runs for every column the poller's scheduler reads).
    @inlinable
    package func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        guard let text = try text(ofColumn: column) else {
            guard let null = T.postgresNullValue else { throw Self.nullError(column: column, type: T.self) }
            return null
        }
        do {
            return try T(postgresText: text)
        } catch {
            throw Self.decodingError(column: column, error)
        }
    }

    /// The column's text, nil for NULL; throws when there is no such column.
    @usableFromInline func text(ofColumn column: String) throws(PostgresError) -> String? {
        guard let index = storage.index(ofColumn: column) else {
            throw PostgresError(
                code: .decoding, message: "column \"\(column)\" is not in the result (columns: \(storage.columns.joined(separator: ", ")))")
        }
        return storage.values[row * storage.columns.count + index]
    }

    @usableFromInline static func nullError(column: String, type: Any.Type) -> PostgresError {
        PostgresError(code: .decoding, message: "column \"\(column)\" is NULL but \(type) is not optional")
    }

    @usableFromInline static func decodingError(column: String, _ error: PostgresError) -> PostgresError {
        PostgresError(code: .decoding, message: "column \"\(column)\": \(error.message)")
    }
}
