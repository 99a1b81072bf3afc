internal import CLibPQ

/// Owns one `PGresult` and frees it when dropped; values are copied out
/// into Swift arrays by `rows()`.
struct LibPQResult: ~Copyable {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    var status: ExecStatusType {
        PQresultStatus(handle)
    }

    var isSuccess: Bool {
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: true
        default: false
        }
    }

    /// The command tag, e.g. "INSERT 0 1" or "ROLLBACK".
    var commandStatus: String {
        String(cString: PQcmdStatus(handle))
    }

    /// Rows returned or changed, from the command tag ("UPDATE 3"); 0 when it has no count.
    var affectedRows: Int {
        Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    var sqlState: String? {
        field(Int32(UInt8(ascii: "C")))
    }

    /// The server's message with its detail and hint lines.
    var errorMessage: String {
        String(cString: PQresultErrorMessage(handle)).trimmingTrailingWhitespace
    }

    func rows() -> PostgresRows {
        let rowCount = Int(PQntuples(handle))
        let columnCount = Int(PQnfields(handle))
        let columns = (0..<columnCount).map { String(cString: PQfname(handle, Int32($0))) }
        var values: [String?] = []
        values.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                if PQgetisnull(handle, row, column) == 1 {
                    values.append(nil)
                } else {
                    let bytes = UnsafeRawBufferPointer(start: PQgetvalue(handle, row, column), count: Int(PQgetlength(handle, row, column)))
                    values.append(String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        return PostgresRows(columns: columns, values: values, rowCount: rowCount, affectedRows: affectedRows)
    }

    private func field(_ code: Int32) -> String? {
        PQresultErrorField(handle, code).map { String(cString: $0) }
    }
}
