/// A failure of the database layer.
///
/// `description` is a short fixed text (the code and the SQLSTATE) that is
/// safe for logs, metric labels and HTTP responses; the server's message and
/// other details, which may quote data, are only in `debugDescription`.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Spelt in snake_case, as every error code of Tidings is (decision 0053).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// No connection could be opened.
        package static let connectionFailed = Code("connection_failed")
        /// The connection was lost while in use.
        package static let connectionClosed = Code("connection_closed")
        /// The server rejected a statement; `sqlState` says why.
        package static let server = Code("server")
        /// No connection became free before the acquire timeout.
        package static let poolTimeout = Code("pool_timeout")
        /// The pool was closed.
        package static let poolClosed = Code("pool_closed")
        /// A statement expected to return a row returned none.
        package static let noRow = Code("no_row")
        /// A column value could not be turned into the requested Swift type.
        package static let decoding = Code("decoding")
        /// A migration file is missing, edited, misnamed or failed to apply.
        package static let migration = Code("migration")
        /// A command managing the local PostgreSQL server failed.
        package static let localCluster = Code("local_cluster")

        public var description: String {
            name
        }
    }

    package var code: Code
    /// The five-character SQLSTATE from the server, e.g. "23505".
    package var sqlState: String?
    /// The server's primary message and details, or the local cause.
    package var message: String

    package init(code: Code, sqlState: String? = nil, message: String) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String {
        if let sqlState {
            return "PostgresError.\(code) (SQLSTATE \(sqlState))"
        }
        return "PostgresError.\(code)"
    }

    public var debugDescription: String {
        "\(description): \(message)"
    }

    /// unique_violation
    package var isUniqueViolation: Bool {
        sqlState == "23505"
    }

    /// foreign_key_violation
    package var isForeignKeyViolation: Bool {
        sqlState == "23503"
    }

    /// serialization_failure or deadlock_detected: the transaction may be retried.
    package var isSerializationFailure: Bool {
        sqlState == "40001" || sqlState == "40P01"
    }
}
