internal import CLibPQ
import TidingsSynchronization

/// Opens one libpq connection from a configuration.
enum LibPQConnector {
    /// A connected `PGconn`, or `.connectionFailed` with libpq's reason.
    static func connect(_ configuration: PostgresConfiguration) throws(PostgresError) -> OpaquePointer {
        // Parameters after "dbname" override those in the expanded connection string.
        var parameters: [(String, String)] = [
            ("dbname", configuration.connectionString),
            ("application_name", configuration.applicationName),
            ("connect_timeout", String(connectTimeoutSeconds(configuration.connectTimeout))),
            ("client_encoding", "UTF8"),
        ]
        if !configuration.sessionSettings.isEmpty {
            parameters.append(("options", options(configuration.sessionSettings)))
        }
        // Both arrays end with NULL, as libpq requires.
        let handle = try LibPQParameters.withCStrings(parameters.map(\.0) + [nil]) { (keywords) throws(PostgresError) in
            try LibPQParameters.withCStrings(parameters.map(\.1) + [nil]) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let connection = handle else {
            throw PostgresError(code: .connectionFailed, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingTrailingWhitespace
            PQfinish(connection)
            throw PostgresError(code: .connectionFailed, message: message)
        }
        // Server notices ("relation ... already exists, skipping") are
        // informational; libpq would print them to stderr, outside the
        // structured log stream, so they are dropped.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        return connection
    }

    /// `-c name=value` per setting; libpq splits `options` on spaces, so
    /// spaces and backslashes in values are escaped with a backslash.
    private static func options(_ settings: [String: String]) -> String {
        settings.sorted { $0.key < $1.key }.map { name, value in
            var escaped = ""
            for character in value {
                if character == " " || character == "\\" { escaped.append("\\") }
                escaped.append(character)
            }
            return "-c \(name)=\(escaped)"
        }.joined(separator: " ")
    }

    /// libpq takes whole seconds and treats anything below 2 as 2.
    private static func connectTimeoutSeconds(_ timeout: Duration) -> Int64 {
        max(2, timeout.roundedUpSeconds)
    }
}
