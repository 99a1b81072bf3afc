/// One row of a `PostgresRows`, read by column name.
package struct PostgresRow: Sendable {
    private let storage: PostgresRows.Storage
    private let row: Int

    init(storage: PostgresRows.Storage, row: Int) {
        self.storage = storage
        self.row = row
    }

    package var columns: [String] {
        storage.columns
    }

    /// The column's value as `T`. An `Optional` type reads NULL as nil; any
    /// other type throws `.decoding` for NULL. Errors name the column.
    package func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        guard let index = storage.index(ofColumn: column) else {
            throw PostgresError(
                code: .decoding, message: "column \"\(column)\" is not in the result (columns: \(storage.columns.joined(separator: ", ")))")
        }
        guard let text = storage.values[row * storage.columns.count + index] else {
            guard let null = T.postgresNullValue else {
                throw PostgresError(code: .decoding, message: "column \"\(column)\" is NULL but \(T.self) is not optional")
            }
            return null
        }
        do {
            return try T(postgresText: text)
        } catch {
            throw PostgresError(code: .decoding, message: "column \"\(column)\": \(error.message)")
        }
    }
}
