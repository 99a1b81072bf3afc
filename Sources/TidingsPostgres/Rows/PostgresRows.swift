/// The materialized result of one statement: every value was copied out of
/// libpq's result, which is already freed.
public struct PostgresRows: Sendable, RandomAccessCollection {
    /// Rows returned, inserted, updated or deleted, as the server's command tag reports.
    package var affectedRows: Int
    package var columns: [String] {
        storage.columns
    }

    private let storage: Storage

    init(columns: [String], values: [String?], rowCount: Int, affectedRows: Int) {
        self.storage = Storage(columns: columns, values: values, rowCount: rowCount)
        self.affectedRows = affectedRows
    }

    public var startIndex: Int {
        0
    }

    public var endIndex: Int {
        storage.rowCount
    }

    public subscript(position: Int) -> PostgresRow {
        precondition(indices.contains(position), "row index out of range")
        return PostgresRow(storage: storage, row: position)
    }

    /// The first row of a statement that returns one (an aggregate, an
    /// `INSERT ... RETURNING`). A row that is not there, say because a
    /// concurrent deletion won a race, throws `.noRow` instead of trapping
    /// the process as `[0]` would.
    package func single() throws(PostgresError) -> PostgresRow {
        guard let first = indices.first else {
            throw PostgresError(code: .noRow, message: "the statement returned no row where one was expected")
        }
        return self[first]
    }

    /// Values of all rows in one flat row-major array, shared by every row.
    @usableFromInline final class Storage: Sendable {
        /// Up to this many columns, comparing names one by one finds a column
        /// sooner than hashing the name, and the result needs no table.
        private static let maxColumnsScanned = 8

        let columns: [String]
        let values: [String?]
        let rowCount: Int
        /// Built only for wide results, where it saves a scan per decode.
        private let columnIndex: [String: Int]?

        init(columns: [String], values: [String?], rowCount: Int) {
            self.columns = columns
            self.values = values
            self.rowCount = rowCount
            // The first of duplicate names wins, as in most drivers.
            self.columnIndex =
                columns.count > Self.maxColumnsScanned
                ? Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
                : nil
        }

        /// The position of the first column with this name.
        func index(ofColumn name: String) -> Int? {
            guard let columnIndex else { return columns.firstIndex(of: name) }
            return columnIndex[name]
        }
    }
}
