internal import CLibPQ

/// One open session with the server. It blocks the calling thread for every
/// round trip and must be used by one thread at a time, which a lease from
/// `PostgresClient` guarantees.
package final class PostgresConnection {
    // Internal for the LISTEN support in PostgresConnection+Notifications.swift.
    let handle: OpaquePointer
    private var statements = PreparedStatementCache()
    private var markedBroken = false

    /// Opens a connection outside any pool (the pool and the local cluster's
    /// setup use this).
    package init(configuration: PostgresConfiguration) throws(PostgresError) {
        handle = try LibPQConnector.connect(configuration)
        do {
            // Timestamps are read back in this form; a server-wide DateStyle
            // or TimeZone of another shape must not change it.
            try execute(unsafeSQL: "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'")
        } catch {
            throw PostgresError(code: .connectionFailed, sqlState: error.sqlState, message: error.message)
        }
    }

    deinit {
        PQfinish(handle)
    }

    /// True once the connection was lost or left in a state it cannot leave;
    /// the pool discards such a connection instead of reusing it.
    package var isBroken: Bool {
        markedBroken || PQstatus(handle) != CONNECTION_OK
    }

    /// Runs one statement with its parameters sent separately from the SQL
    /// text (extended protocol, text format), prepared once per connection.
    package func query(_ query: PostgresQuery) throws(PostgresError) -> PostgresRows {
        try run(query).rows()
    }

    /// Runs one statement and returns the number of rows it affected.
    @discardableResult
    package func execute(_ query: PostgresQuery) throws(PostgresError) -> Int {
        try run(query).affectedRows
    }

    /// Runs SQL text as is through the simple-query protocol, which accepts
    /// several statements separated by semicolons but no parameters. Meant
    /// for migrations and fixed statements, never for text holding input.
    package func execute(unsafeSQL sql: String) throws(PostgresError) {
        try checkUsable()
        _ = try check(PQexec(handle, sql))
    }

    // MARK: Pool and transaction support

    /// Whether an idle connection can be handed out again: still connected,
    /// outside any transaction, and nothing unexpected arrived meanwhile.
    var isAliveWhileIdle: Bool {
        !isBroken && PQtransactionStatus(handle) == PQTRANS_IDLE && SocketProbe.isQuietAndOpen(PQsocket(handle))
    }

    /// Prepares the connection for its next lease: a transaction the last
    /// one left open or failed is rolled back. False if it cannot be reused.
    func resetForReuse() -> Bool {
        if !isBroken && PQtransactionStatus(handle) != PQTRANS_IDLE {
            rollBackQuietly()
        }
        return !isBroken && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    func markBroken() {
        markedBroken = true
    }

    /// Sends COMMIT; a transaction that had already failed is rolled back by
    /// the server instead, which is reported as an error rather than success.
    func commit() throws(PostgresError) {
        try checkUsable()
        let result = try check(PQexec(handle, "COMMIT"))
        if result.commandStatus == "ROLLBACK" {
            throw PostgresError(
                code: .server, sqlState: "25P02", message: "COMMIT rolled the transaction back because a statement in it had failed")
        }
    }

    /// Ends a transaction after a failure; a connection that cannot even
    /// roll back is marked broken so the pool discards it.
    func rollBackQuietly() {
        guard !isBroken else { return }
        do {
            try execute(unsafeSQL: "ROLLBACK")
        } catch {
            markBroken()
        }
    }

    // MARK: Execution

    private func run(_ query: PostgresQuery) throws(PostgresError) -> LibPQResult {
        try checkUsable()
        let parameterCount = Int32(query.binds.count)
        if let name = statements.name(for: query.sql) {
            return try check(
                LibPQParameters.withCStrings(query.binds) { values in
                    PQexecPrepared(handle, name, parameterCount, values, nil, nil, 0)
                })
        }
        if let name = statements.nextName {
            _ = try check(PQprepare(handle, name, query.sql, parameterCount, nil))
            statements.store(name: name, for: query.sql)
            return try check(
                LibPQParameters.withCStrings(query.binds) { values in
                    PQexecPrepared(handle, name, parameterCount, values, nil, nil, 0)
                })
        }
        return try check(
            LibPQParameters.withCStrings(query.binds) { values in
                PQexecParams(handle, query.sql, parameterCount, nil, values, nil, nil, 0)
            })
    }

    func checkUsable() throws(PostgresError) {
        guard !isBroken else {
            throw PostgresError(code: .connectionClosed, message: "the connection is broken and cannot run statements")
        }
    }

    /// Turns libpq's answer into a result or an error, marking the connection
    /// broken when the session is gone or in a state this type never uses.
    private func check(_ handle: OpaquePointer?) throws(PostgresError) -> LibPQResult {
        guard let handle else {
            markBroken()
            throw PostgresError(code: .connectionClosed, message: String(cString: PQerrorMessage(self.handle)).trimmingTrailingWhitespace)
        }
        let result = LibPQResult(handle)
        if result.isSuccess {
            return result
        }
        if isBroken || result.status != PGRES_FATAL_ERROR {
            // Lost connection, or COPY / pipeline states the pool could not reset.
            markBroken()
            let message = result.status == PGRES_FATAL_ERROR ? result.errorMessage : "unexpected result status \(result.status.rawValue)"
            throw PostgresError(code: .connectionClosed, sqlState: result.sqlState, message: message)
        }
        throw PostgresError(code: .server, sqlState: result.sqlState, message: result.errorMessage)
    }
}
