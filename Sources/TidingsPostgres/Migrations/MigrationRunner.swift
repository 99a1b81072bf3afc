package import TidingsObservability

/// Applies the `NNNN_name.sql` files of a directory in order, each once,
/// then the function files of another that are new or changed.
///
/// Each file runs in its own transaction together with the row recording
/// it (version, file name, SHA-256 of its bytes) in
/// `tidings_schema_migrations`. A recorded file that was edited or removed
/// stops the run: the schema would no longer match the files. Runners in
/// several processes take turns through a PostgreSQL advisory lock, so
/// replicas starting together apply each file exactly once. Files must not
/// contain their own transaction control (BEGIN/COMMIT).
///
/// Migrations hold tables and data; the function files hold the current
/// text of every function and trigger (decision 0049), recorded by
/// checksum in `tidings_schema_functions` and applied again when edited.
package struct MigrationRunner: Sendable {
    /// The advisory lock key all Tidings migration runners share ("tidings" in ASCII).
    static let advisoryLockKey: Int64 = 0x74_69_64_69_6e_67_73

    package let directory: String
    /// The folder of function files (`schema/functions`), or nil for a
    /// runner of migrations alone.
    package let functionsDirectory: String?
    private let client: PostgresClient
    let logger: Logger

    package init(directory: String, functionsDirectory: String? = nil, client: PostgresClient, logger: Logger) {
        self.directory = directory
        self.functionsDirectory = functionsDirectory
        self.client = client
        self.logger = logger
    }

    /// Applies every pending migration, then every new or changed function
    /// file, and returns their file names in that order.
    package func migrate() throws -> [String] {
        let files = try MigrationFile.load(directory: directory)
        // One connection holds the session lock and does all the work, so
        // the run needs a single slot of the pool.
        return try client.withConnection { connection in
            try connection.execute("SELECT pg_advisory_lock(\(Self.advisoryLockKey))")
            defer { unlock(connection) }
            try connection.execute(
                unsafeSQL: """
                    CREATE TABLE IF NOT EXISTS tidings_schema_migrations (
                        version int PRIMARY KEY,
                        name text NOT NULL,
                        checksum text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
            let pending = try pendingFiles(files, applied: appliedMigrations(connection))
            for file in pending {
                try apply(file, on: connection)
            }
            guard let functionsDirectory else { return pending.map(\.name) }
            return try pending.map(\.name) + applyFunctions(from: functionsDirectory, on: connection)
        }
    }

    /// File names not yet applied, in the order `migrate()` would apply them.
    /// Throws like `migrate()` when applied files were edited or removed.
    package func pendingMigrations() throws -> [String] {
        let files = try MigrationFile.load(directory: directory)
        return try client.withConnection { connection in
            let table = try connection.query("SELECT to_regclass('tidings_schema_migrations') IS NOT NULL AS present")
            guard try table.first?.decode("present", as: Bool.self) == true else {
                return files.map(\.name)
            }
            return try pendingFiles(files, applied: appliedMigrations(connection)).map(\.name)
        }
    }

    package func isUpToDate() throws -> Bool {
        try pendingMigrations().isEmpty
    }

    /// The highest version among the directory's files, 0 when there are none.
    package func latestVersion() throws -> Int {
        try MigrationFile.load(directory: directory).last?.version ?? 0
    }

    /// The highest version applied in the database, 0 when none is (or the
    /// record table does not exist yet). A single-row read, cheap enough for
    /// every readiness probe.
    package func appliedVersion() throws -> Int {
        do {
            let rows = try client.query("SELECT version FROM tidings_schema_migrations ORDER BY version DESC LIMIT 1")
            return try rows.first?.decode("version", as: Int.self) ?? 0
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return 0
        }
    }

    private struct AppliedMigration {
        let version: Int
        let name: String
        let checksum: String
    }

    private func appliedMigrations(_ connection: PostgresConnection) throws(PostgresError) -> [AppliedMigration] {
        try connection.query("SELECT version, name, checksum FROM tidings_schema_migrations ORDER BY version").map {
            (row) throws(PostgresError) in
            try AppliedMigration(version: row.decode("version"), name: row.decode("name"), checksum: row.decode("checksum"))
        }
    }

    /// Checks the record against the files and returns those still to apply.
    private func pendingFiles(_ files: [MigrationFile], applied: [AppliedMigration]) throws(PostgresError) -> [MigrationFile] {
        let filesByVersion = Dictionary(uniqueKeysWithValues: files.map { ($0.version, $0) })
        for record in applied {
            guard let file = filesByVersion[record.version] else {
                throw PostgresError(code: .migration, message: "applied migration \(record.name) has no file in \(directory)")
            }
            guard file.checksum == record.checksum else {
                throw PostgresError(
                    code: .migration,
                    message: "\(file.name) was edited after it was applied (checksum \(file.checksum), recorded \(record.checksum))")
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        let pending = files.filter { !appliedVersions.contains($0.version) }
        if let latest = applied.last, let early = pending.first(where: { $0.version < latest.version }) {
            throw PostgresError(
                code: .migration, message: "\(early.name) is numbered below the already applied \(latest.name); give it a higher number")
        }
        return pending
    }

    private func apply(_ file: MigrationFile, on connection: PostgresConnection) throws(PostgresError) {
        do throws(PostgresError) {
            try connection.execute(unsafeSQL: "BEGIN")
            try connection.execute(unsafeSQL: file.sql)
            try connection.execute(
                "INSERT INTO tidings_schema_migrations (version, name, checksum) VALUES (\(file.version), \(file.name), \(file.checksum))")
            try connection.commit()
        } catch {
            connection.rollBackQuietly()
            throw PostgresError(code: .migration, sqlState: error.sqlState, message: "\(file.name) failed: \(error.message)")
        }
        logger.info("applied database migration", metadata: ["migration.name": file.name])
    }

    /// Releases the advisory lock; if that fails the connection is discarded,
    /// which ends the session and releases the lock with it.
    private func unlock(_ connection: PostgresConnection) {
        do {
            try connection.execute("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))")
        } catch {
            connection.markBroken()
        }
    }
}
