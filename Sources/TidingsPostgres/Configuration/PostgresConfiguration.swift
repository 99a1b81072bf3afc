/// How to reach PostgreSQL and how large the pool may grow.
package struct PostgresConfiguration: Sendable {
    /// A libpq URL or key=value conninfo string,
    /// e.g. "postgresql://tidings@/tidings?host=/var/run/tidings".
    package var connectionString: String
    package var maxConnections: Int
    /// Time allowed to open one connection (libpq counts whole seconds, at least 2).
    package var connectTimeout: Duration
    /// Time a caller waits for a free connection before `.poolTimeout`.
    package var acquireTimeout: Duration
    /// Shown in `pg_stat_activity`; overrides one given in the connection string.
    package var applicationName: String
    /// Run-time parameters every connection starts with (sent as libpq
    /// `options`, so they survive reconnects), e.g. `tidings.badge_coalesce`.
    package var sessionSettings: [String: String] = [:]

    package init(
        connectionString: String,
        maxConnections: Int = 8,
        connectTimeout: Duration = .seconds(5),
        acquireTimeout: Duration = .seconds(5),
        applicationName: String = "tidings"
    ) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.connectionString = connectionString
        self.maxConnections = maxConnections
        self.connectTimeout = connectTimeout
        self.acquireTimeout = acquireTimeout
        self.applicationName = applicationName
    }
}
