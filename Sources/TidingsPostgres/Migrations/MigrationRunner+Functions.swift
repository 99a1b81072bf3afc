import TidingsObservability

extension MigrationRunner {
    /// Applies the function files that are new or changed since they were
    /// last applied, all in one transaction with their records in
    /// `tidings_schema_functions`, and returns their names. Runs after the
    /// migrations and under their advisory lock, so replicas starting
    /// together apply a changed file once and never see half a set.
    func applyFunctions(from directory: String, on connection: PostgresConnection) throws(PostgresError) -> [String] {
        let files = try FunctionFile.load(directory: directory)
        try connection.execute(
            unsafeSQL: """
                CREATE TABLE IF NOT EXISTS tidings_schema_functions (
                    name text PRIMARY KEY,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
        var recorded: [String: String] = [:]
        for row in try connection.query("SELECT name, checksum FROM tidings_schema_functions") {
            recorded[try row.decode("name", as: String.self)] = try row.decode("checksum", as: String.self)
        }
        let changed = files.filter { recorded[$0.name] != $0.checksum }
        let removed = Set(recorded.keys).subtracting(files.map(\.name))
        guard !changed.isEmpty || !removed.isEmpty else { return [] }
        var current = ""
        do throws(PostgresError) {
            try connection.execute(unsafeSQL: "BEGIN")
            for file in changed {
                current = file.name
                try connection.execute(unsafeSQL: file.sql)
                try connection.execute(
                    """
                    INSERT INTO tidings_schema_functions (name, checksum) VALUES (\(file.name), \(file.checksum))
                    ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()
                    """)
            }
            current = ""
            // A file that went no longer defines anything here; should it
            // come back, it applies again.
            for name in removed.sorted() {
                try connection.execute("DELETE FROM tidings_schema_functions WHERE name = \(name)")
            }
            try connection.commit()
        } catch {
            connection.rollBackQuietly()
            let file = current.isEmpty ? "tidings_schema_functions" : current
            throw PostgresError(code: .migration, sqlState: error.sqlState, message: "\(file) failed: \(error.message)")
        }
        for file in changed {
            logger.info("applied database function file", metadata: ["function.file": file.name])
        }
        return changed.map(\.name)
    }
}
