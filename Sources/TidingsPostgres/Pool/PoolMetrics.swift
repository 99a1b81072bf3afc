import TidingsObservability

/// Publishes a pool's occupancy as gauges read at scrape time.
enum PoolMetrics {
    static func observe(_ client: PostgresClient, in registry: MetricsRegistry) {
        let gauges: [(name: String, help: String, value: @Sendable (PostgresPoolStatistics) -> Int)] = [
            ("tidings_db_pool_connections_in_use", "Database connections leased to callers.", \.inUse),
            ("tidings_db_pool_connections_idle", "Open database connections waiting in the pool.", \.idle),
            ("tidings_db_pool_waiters", "Callers waiting for a free database connection.", \.waiters),
            ("tidings_db_pool_max_connections", "Upper bound of the database connection pool.", \.maxConnections),
        ]
        for gauge in gauges {
            let value = gauge.value
            // Weak, so that the registry does not keep a discarded pool alive.
            registry.gauge(gauge.name, help: gauge.help).observe { [weak client] in
                Double(client.map { value($0.statistics) } ?? 0)
            }
        }
    }
}
