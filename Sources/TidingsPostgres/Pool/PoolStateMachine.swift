/// The bookkeeping of a bounded connection pool, as a value with no I/O.
///
/// Every event returns what must happen next (hand a connection to a waiter,
/// close a connection, open a new one); the owner applies the event under a
/// lock and carries out the actions after releasing it. Time comes in as
/// arguments, so tests drive it without a clock or a database.
///
/// A *slot* is the right to hold one connection. `leased` counts the slots
/// held by callers, whether their connection is in use or still opening;
/// `leased + idle.count` never exceeds `maxConnections`.
struct PoolStateMachine<Connection, Waiter> {
    typealias Instant = ContinuousClock.Instant

    enum Failure: Equatable {
        case timedOut
        case closed
    }

    /// The answer to a lease request.
    enum LeaseDecision {
        /// Use this idle connection.
        case use(Connection)
        /// A slot is reserved for the caller: open a new connection in it.
        case open
        /// No slot is free: enqueue a waiter with `enqueue(_:deadline:)`.
        case mustWait
        case fail(Failure)
    }

    /// What a waiter is woken with.
    enum WaiterOutcome {
        case use(Connection)
        case open
        case fail(Failure)
    }

    enum Action {
        case deliver(WaiterOutcome, to: Waiter)
        case close(Connection)
    }

    struct WaiterID: Hashable {
        fileprivate let value: Int
    }

    private struct QueuedWaiter {
        let id: WaiterID
        let waiter: Waiter
        let deadline: Instant
    }

    let maxConnections: Int
    private var idle: [Connection] = []
    private var leased = 0
    private var waiters: [QueuedWaiter] = []
    private var nextWaiterID = 0
    private var totalCreated = 0
    private(set) var isClosed = false

    init(maxConnections: Int) {
        precondition(maxConnections > 0)
        self.maxConnections = maxConnections
    }

    var statistics: PostgresPoolStatistics {
        PostgresPoolStatistics(
            inUse: leased, idle: idle.count, waiters: waiters.count, maxConnections: maxConnections, totalCreated: totalCreated)
    }

    mutating func leaseRequested() -> LeaseDecision {
        if isClosed {
            return .fail(.closed)
        }
        // The most recently returned connection is the likeliest to be alive
        // and to have its statements prepared.
        if let connection = idle.popLast() {
            leased += 1
            return .use(connection)
        }
        if leased < maxConnections {
            leased += 1
            return .open
        }
        return .mustWait
    }

    /// Queues a caller that found no free slot; waiters are served in order.
    mutating func enqueue(_ waiter: Waiter, deadline: Instant) -> WaiterID {
        let id = WaiterID(value: nextWaiterID)
        nextWaiterID += 1
        waiters.append(QueuedWaiter(id: id, waiter: waiter, deadline: deadline))
        return id
    }

    /// A waiter gave up at its deadline. True if it was still queued (it
    /// times out); false if an outcome was already delivered to it.
    mutating func waiterTimedOut(_ id: WaiterID) -> Bool {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return false }
        waiters.remove(at: index)
        return true
    }

    mutating func opened() {
        totalCreated += 1
    }

    /// Opening a connection failed: its slot goes to the next waiter, which
    /// tries on its own, or becomes free.
    mutating func openFailed(now: Instant) -> [Action] {
        var actions = expireWaiters(now: now)
        passSlotToWaiter(&actions)
        return actions
    }

    /// A lease ended. A `reusable` connection goes to the next waiter or
    /// back to the idle list; any other is closed and its slot passed on.
    mutating func released(_ connection: Connection, reusable: Bool, now: Instant) -> [Action] {
        if isClosed {
            leased -= 1
            return [.close(connection)]
        }
        var actions = expireWaiters(now: now)
        if reusable {
            if waiters.isEmpty {
                leased -= 1
                idle.append(connection)
            } else {
                actions.append(.deliver(.use(connection), to: waiters.removeFirst().waiter))
            }
        } else {
            actions.append(.close(connection))
            passSlotToWaiter(&actions)
        }
        return actions
    }

    /// Fails every waiter and closes idle connections; leased ones are
    /// closed as they come back. Closing twice does nothing more.
    mutating func close() -> [Action] {
        guard !isClosed else { return [] }
        isClosed = true
        let actions = waiters.map { Action.deliver(.fail(.closed), to: $0.waiter) } + idle.map { .close($0) }
        waiters.removeAll()
        idle.removeAll()
        return actions
    }

    private mutating func passSlotToWaiter(_ actions: inout [Action]) {
        if waiters.isEmpty {
            leased -= 1
        } else {
            actions.append(.deliver(.open, to: waiters.removeFirst().waiter))
        }
    }

    /// Waiters past their deadline are failed rather than served late.
    private mutating func expireWaiters(now: Instant) -> [Action] {
        var actions: [Action] = []
        waiters.removeAll { queued in
            guard queued.deadline <= now else { return false }
            actions.append(.deliver(.fail(.timedOut), to: queued.waiter))
            return true
        }
        return actions
    }
}

extension PoolStateMachine.WaiterOutcome: Sendable where Connection: Sendable {}
