import FoundationEssentials
package import TidingsObservability
import TidingsPostgres

/// A private PostgreSQL server living in one directory: data in
/// `DIR/postgres`, log in `DIR/postgres.log`, and a unix socket (no TCP
/// port) in `DIR/run`, or in a /tmp directory named from a hash of DIR when
/// that path would be too long for a socket.
///
/// Used when Tidings runs without a database URL. As root, the server runs
/// as the `postgres` system user, which initdb and postgres require.
package struct LocalPostgresCluster: Sendable {
    /// The database created for Tidings at first start.
    package static let databaseName = "tidings"
    static let superuser = "tidings"

    let paths: LocalClusterPaths
    private let logger: Logger

    package init(directory: String, logger: Logger) {
        self.paths = LocalClusterPaths(directory: directory)
        self.logger = logger
    }

    package var dataDirectory: String {
        paths.dataDirectory
    }

    package var socketDirectory: String {
        paths.socketDirectory
    }

    /// "postgresql://tidings@/tidings?host=SOCKETDIR"
    package var connectionString: String {
        connectionString(database: Self.databaseName)
    }

    /// Creates the cluster if the directory has none, starts the server
    /// unless it is already running, and creates the `tidings` database.
    package func start() throws {
        let binaries = try PostgresServerBinaries.newest()
        let account = try ServerAccount.forCurrentProcess()
        let command = ServerCommand(account: account)
        try prepareFiles(for: account)
        if !clusterExists {
            logger.info("creating local PostgreSQL cluster", metadata: ["postgres.data": paths.dataDirectory])
            try command.runChecked(
                binaries.initdb,
                [
                    "-D", paths.dataDirectory, "-U", Self.superuser, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8",
                ])
        }
        if try isRunning(command, binaries) {
            logger.info("reusing running local PostgreSQL", metadata: ["postgres.data": paths.dataDirectory])
        } else {
            try command.runChecked(
                binaries.pgCtl,
                [
                    "start", "-D", paths.dataDirectory, "-l", paths.logFile, "-w", "-t", "60",
                    // Autovacuum looks every 5 s, not every minute: the poller
                    // rewrites targets faster than that (decision 0030).
                    "-o", "-c listen_addresses='' -k \(Self.shellQuoted(paths.socketDirectory)) -c autovacuum_naptime=5s",
                ])
            logger.info(
                "started local PostgreSQL", metadata: ["postgres.data": paths.dataDirectory, "postgres.socket": paths.socketDirectory])
        }
        try createDatabaseIfMissing()
    }

    /// Stops the server (fast shutdown: open sessions are ended) if it runs.
    package func stop() throws {
        let binaries = try PostgresServerBinaries.newest()
        let command = ServerCommand(account: try ServerAccount.forCurrentProcess())
        guard clusterExists, try isRunning(command, binaries) else { return }
        try command.runChecked(binaries.pgCtl, ["stop", "-D", paths.dataDirectory, "-m", "fast", "-w", "-t", "60"])
        logger.info("stopped local PostgreSQL", metadata: ["postgres.data": paths.dataDirectory])
    }

    package func restart() throws {
        try stop()
        try start()
    }

    // MARK: Steps

    private var clusterExists: Bool {
        FileManager.default.fileExists(atPath: paths.dataDirectory + "/PG_VERSION")
    }

    /// pg_ctl status exits 0 when a server runs on the data directory and 3 when none does.
    private func isRunning(_ command: ServerCommand, _ binaries: PostgresServerBinaries) throws(PostgresError) -> Bool {
        let result = try command.run(binaries.pgCtl, ["status", "-D", paths.dataDirectory])
        switch result.exitStatus {
        case 0: return true
        case 3: return false
        default:
            throw PostgresError(code: .localCluster, message: "pg_ctl status exited with status \(result.exitStatus): \(result.output)")
        }
    }

    private func prepareFiles(for account: ServerAccount) throws(PostgresError) {
        try ClusterFileSystem.prepareDirectory(paths.dataDirectory, mode: 0o700, for: account)
        try ClusterFileSystem.prepareDirectory(paths.socketDirectory, mode: 0o700, for: account)
        try ClusterFileSystem.prepareFile(paths.logFile, for: account)
        guard account.switchToUser != nil else { return }
        let granted =
            try ClusterFileSystem.grantTraversal(downTo: paths.root, for: account)
            + ClusterFileSystem.grantTraversal(downTo: paths.socketDirectory, for: account)
        if !granted.isEmpty {
            logger.warning(
                "granted others traverse permission (o+x) so the postgres user can reach the cluster",
                metadata: ["directories": granted.joined(separator: ",")]
            )
        }
    }

    private func createDatabaseIfMissing() throws(PostgresError) {
        let connection = try PostgresConnection(
            configuration: PostgresConfiguration(connectionString: connectionString(database: "postgres")))
        let existing = try connection.query("SELECT 1 FROM pg_database WHERE datname = \(Self.databaseName)")
        guard existing.isEmpty else { return }
        do {
            try connection.execute(unsafeSQL: "CREATE DATABASE \(Self.databaseName)")
        } catch  where error.sqlState == "42P04" || error.isUniqueViolation {
            // Another process starting the same cluster created it first.
        }
    }

    private func connectionString(database: String) -> String {
        "postgresql://\(Self.superuser)@/\(database)?host=\(Self.percentEncoded(paths.socketDirectory))"
    }

    /// Percent-encodes everything but unreserved characters and "/" for a URI query value.
    private static func percentEncoded(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// pg_ctl hands `-o` to /bin/sh, so a path with spaces or quotes must be quoted.
    private static func shellQuoted(_ value: String) -> String {
        "'" + value.replacing("'", with: "'\\''") + "'"
    }
}
