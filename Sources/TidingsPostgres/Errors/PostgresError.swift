/// A failure of the database layer.
///
/// `description` is a short fixed text (the code and the SQLSTATE) that is
/// safe for logs, metric labels and HTTP responses; the server's message and
/// other details, which may quote data, are only in `debugDescription`.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// No connection could be opened.
        public static let connectionFailed = Code("connectionFailed")
        /// The connection was lost while in use.
        public static let connectionClosed = Code("connectionClosed")
        /// The server rejected a statement; `sqlState` says why.
        public static let server = Code("server")
        /// No connection became free before the acquire timeout.
        public static let poolTimeout = Code("poolTimeout")
        /// The pool was closed.
        public static let poolClosed = Code("poolClosed")
        /// A statement expected to return a row returned none.
        public static let noRow = Code("noRow")
        /// A column value could not be turned into the requested Swift type.
        public static let decoding = Code("decoding")
        /// A migration file is missing, edited, misnamed or failed to apply.
        public static let migration = Code("migration")
        /// A command managing the local PostgreSQL server failed.
        public static let localCluster = Code("localCluster")

        public var description: String {
            name
        }
    }

    public var code: Code
    /// The five-character SQLSTATE from the server, e.g. "23505".
    public var sqlState: String?
    /// The server's primary message and details, or the local cause.
    public var message: String

    public init(code: Code, sqlState: String? = nil, message: String) {
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
    public var isUniqueViolation: Bool {
        sqlState == "23505"
    }

    /// foreign_key_violation
    public var isForeignKeyViolation: Bool {
        sqlState == "23503"
    }

    /// serialization_failure or deadlock_detected: the transaction may be retried.
    public var isSerializationFailure: Bool {
        sqlState == "40001" || sqlState == "40P01"
    }
}
