package import TidingsObservability
import TidingsSynchronization

/// A bounded pool of connections with scoped leases.
///
/// Every call blocks its thread (libpq is synchronous): call it from worker
/// threads, never from Swift's cooperative pool. Connections open lazily, at
/// most `maxConnections` at once; a caller that finds them all leased waits
/// up to `acquireTimeout`. A connection that broke (for example because the
/// server restarted) is discarded and replaced, so the next lease works.
package final class PostgresClient: Service {
    /// A blocked caller waits on a mailbox of its own, so waking one never
    /// wakes the others.
    typealias StateMachine = PoolStateMachine<PooledConnection, Mailbox<PoolHandOff>>

    package let configuration: PostgresConfiguration
    private let logger: Logger
    /// Taken twice by every query (lease, release): see AdaptiveMutex.
    private let state: AdaptiveMutex<StateMachine>
    private let acquireTimeouts: Counter?
    private let clock = ContinuousClock()

    package init(configuration: PostgresConfiguration, logger: Logger, metrics: MetricsRegistry? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.state = AdaptiveMutex(StateMachine(maxConnections: configuration.maxConnections))
        self.acquireTimeouts = metrics?.counter(
            "tidings_db_pool_acquire_timeouts_total", help: "Database connection requests that timed out waiting for a free connection.")
        if let metrics {
            PoolMetrics.observe(self, in: metrics)
        }
    }

    /// Lends a connection to `body` and takes it back on every path.
    @discardableResult
    package func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let pooled = try lease()
        defer { release(pooled) }
        return try body(pooled.connection)
    }

    /// Runs `body` inside BEGIN ... COMMIT. Any error thrown by `body` rolls
    /// the transaction back and is rethrown; a failed COMMIT throws.
    @discardableResult
    package func withTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.execute(unsafeSQL: "BEGIN")
            let value: T
            do {
                value = try body(connection)
            } catch {
                connection.rollBackQuietly()
                throw error
            }
            try connection.commit()
            return value
        }
    }

    /// `withTransaction`, run again when it lost a race that a fresh start
    /// resolves: a deadlock or serialization failure (PostgreSQL rolled the
    /// transaction back, so nothing of it stayed), and with
    /// `foreignKeyRaces` also a foreign key violation, for a body that reads
    /// a row a concurrent transaction may delete before this one refers to
    /// it (the next try no longer finds the row). At most `attempts` tries;
    /// `body` must do nothing outside the transaction.
    @discardableResult
    package func withRetryingTransaction<T>(
        attempts: Int = 5, foreignKeyRaces: Bool = false, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        var tries = 1
        while true {
            do {
                return try withTransaction(body)
            } catch let error as PostgresError
                where (error.isSerializationFailure || foreignKeyRaces && error.isForeignKeyViolation) && tries < attempts
            {
                tries += 1
            }
        }
    }

    /// Runs one statement on a leased connection.
    package func query(_ query: PostgresQuery) throws -> PostgresRows {
        try withConnection { try $0.query(query) }
    }

    package var statistics: PostgresPoolStatistics {
        state.withLock { $0.statistics }
    }

    /// Fails waiting callers, closes idle connections and closes leased ones
    /// as they are returned. Later leases fail with `.poolClosed`.
    package func stop(deadline: ContinuousClock.Instant) {
        let actions = state.withLock { $0.close() }
        perform(actions)
    }

    /// Connections open on demand: nothing to start.
    package func start() {}

    // MARK: Leasing

    private enum LeaseStep {
        case ready(StateMachine.WaiterOutcome)
        case wait(Mailbox<PoolHandOff>, StateMachine.WaiterID)
    }

    private func lease() throws(PostgresError) -> PooledConnection {
        let deadline = clock.now.advanced(by: configuration.acquireTimeout)
        let step = state.withLock { machine -> LeaseStep in
            switch machine.leaseRequested() {
            case .use(let pooled): return .ready(.use(pooled))
            case .open: return .ready(.open)
            case .fail(let failure): return .ready(.fail(failure))
            case .mustWait:
                let waiter = Mailbox<PoolHandOff>()
                return .wait(waiter, machine.enqueue(waiter, deadline: deadline))
            }
        }
        switch step {
        case .ready(let outcome):
            return try take(outcome)
        case .wait(let waiter, let id):
            if let handOff = waiter.wait(timeout: deadline - clock.now) {
                return try take(handOff.outcome)
            }
            if state.withLock({ $0.waiterTimedOut(id) }) {
                return try take(.fail(.timedOut))
            }
            // Served as it timed out: the outcome is on its way.
            return try take(waiter.wait().outcome)
        }
    }

    private func take(_ outcome: StateMachine.WaiterOutcome) throws(PostgresError) -> PooledConnection {
        switch outcome {
        case .use(let pooled):
            if pooled.connection.isAliveWhileIdle {
                return pooled
            }
            logger.notice("discarding a broken idle database connection")
            return try open()
        case .open:
            return try open()
        case .fail(.closed):
            throw PostgresError(code: .poolClosed, message: "the connection pool is closed")
        case .fail(.timedOut):
            acquireTimeouts?.increment()
            throw PostgresError(code: .poolTimeout, message: "no database connection became free within \(configuration.acquireTimeout)")
        }
    }

    /// Opens a connection in the slot the caller holds.
    private func open() throws(PostgresError) -> PooledConnection {
        do {
            let connection = try PostgresConnection(configuration: configuration)
            state.withLock { $0.opened() }
            return PooledConnection(connection: connection)
        } catch {
            logger.warning("could not open a database connection", metadata: ["error": error.description])
            let actions = state.withLock { $0.openFailed(now: clock.now) }
            perform(actions)
            throw error
        }
    }

    /// Returns a lease; a connection that cannot be made clean is discarded.
    private func release(_ pooled: PooledConnection) {
        let reusable = pooled.connection.resetForReuse()
        // Read before taking the lock, which every lease and release contends for.
        let now = clock.now
        let actions = state.withLock { $0.released(pooled, reusable: reusable, now: now) }
        perform(actions)
    }

    /// Runs the state machine's actions, always outside the lock.
    private func perform(_ actions: [StateMachine.Action]) {
        for action in actions {
            switch action {
            case .deliver(let outcome, let waiter):
                waiter.deliver(PoolHandOff(outcome: outcome))
            case .close:
                // The connection closes (PQfinish) when this last reference goes away.
                break
            }
        }
    }
}
