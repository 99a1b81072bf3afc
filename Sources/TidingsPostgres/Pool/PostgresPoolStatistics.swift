/// A snapshot of a pool's occupancy.
package struct PostgresPoolStatistics: Sendable, Equatable {
    /// Connections leased to callers, including ones still being opened.
    package var inUse: Int
    package var idle: Int
    /// Callers blocked until a connection frees up.
    package var waiters: Int
    package var maxConnections: Int
    /// Connections opened over the pool's lifetime, replacements included.
    package var totalCreated: Int

    package init(inUse: Int, idle: Int, waiters: Int, maxConnections: Int, totalCreated: Int) {
        self.inUse = inUse
        self.idle = idle
        self.waiters = waiters
        self.maxConnections = maxConnections
        self.totalCreated = totalCreated
    }
}
