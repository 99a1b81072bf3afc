/// A snapshot of a pool's occupancy.
public struct PostgresPoolStatistics: Sendable, Equatable {
    /// Connections leased to callers, including ones still being opened.
    public var inUse: Int
    public var idle: Int
    /// Callers blocked until a connection frees up.
    public var waiters: Int
    public var maxConnections: Int
    /// Connections opened over the pool's lifetime, replacements included.
    public var totalCreated: Int

    public init(inUse: Int, idle: Int, waiters: Int, maxConnections: Int, totalCreated: Int) {
        self.inUse = inUse
        self.idle = idle
        self.waiters = waiters
        self.maxConnections = maxConnections
        self.totalCreated = totalCreated
    }
}
