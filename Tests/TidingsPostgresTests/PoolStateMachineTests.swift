import Testing

@testable import TidingsPostgres

/// The pool's logic without a database: connections and waiters are plain
/// values, and time is whatever instant a test passes in.
@Suite struct PoolStateMachineTests {
    typealias Machine = PoolStateMachine<String, Int>

    let start = ContinuousClock.now

    @Test func opensUpToTheLimitThenQueues() {
        var machine = Machine(maxConnections: 2)
        let result1 = machine.leaseRequested()
        #expect(result1.isOpen)
        let result2 = machine.leaseRequested()
        #expect(result2.isOpen)
        let result3 = machine.leaseRequested()
        #expect(result3.isMustWait)
        _ = machine.enqueue(1, deadline: start + .seconds(5))
        #expect(machine.statistics == PostgresPoolStatistics(inUse: 2, idle: 0, waiters: 1, maxConnections: 2, totalCreated: 0))
    }

    @Test func releasedConnectionGoesToWaitersInOrder() {
        var machine = Machine(maxConnections: 1)
        _ = machine.leaseRequested()
        machine.opened()
        _ = machine.enqueue(1, deadline: start + .seconds(5))
        _ = machine.enqueue(2, deadline: start + .seconds(5))

        let first = machine.released("a", reusable: true, now: start)
        #expect(first.delivered == [Delivery(waiter: 1, outcome: "use a")])
        let second = machine.released("a", reusable: true, now: start)
        #expect(second.delivered == [Delivery(waiter: 2, outcome: "use a")])
        let result4 = machine.released("a", reusable: true, now: start)
        #expect(result4.isEmpty)
        #expect(machine.statistics == PostgresPoolStatistics(inUse: 0, idle: 1, waiters: 0, maxConnections: 1, totalCreated: 1))
    }

    @Test func idleConnectionsAreReusedMostRecentFirst() {
        var machine = Machine(maxConnections: 2)
        _ = machine.leaseRequested()
        _ = machine.leaseRequested()
        _ = machine.released("a", reusable: true, now: start)
        _ = machine.released("b", reusable: true, now: start)
        let result5 = machine.leaseRequested()
        #expect(result5.connection == "b")
        let result6 = machine.leaseRequested()
        #expect(result6.connection == "a")
        let result7 = machine.leaseRequested()
        #expect(result7.isMustWait)
    }

    @Test func brokenConnectionIsClosedAndItsSlotPassedToAWaiter() {
        var machine = Machine(maxConnections: 1)
        _ = machine.leaseRequested()
        _ = machine.enqueue(7, deadline: start + .seconds(5))
        let actions = machine.released("a", reusable: false, now: start)
        #expect(actions.closed == ["a"])
        #expect(actions.delivered == [Delivery(waiter: 7, outcome: "open")])
        #expect(machine.statistics.inUse == 1)
    }

    @Test func brokenConnectionWithoutWaitersFreesItsSlot() {
        var machine = Machine(maxConnections: 1)
        _ = machine.leaseRequested()
        let result8 = machine.released("a", reusable: false, now: start)
        #expect(result8.closed == ["a"])
        #expect(machine.statistics.inUse == 0 && machine.statistics.idle == 0)
        let result9 = machine.leaseRequested()
        #expect(result9.isOpen)
    }

    @Test func failedOpenPassesTheSlotOn() {
        var machine = Machine(maxConnections: 1)
        _ = machine.leaseRequested()
        _ = machine.enqueue(3, deadline: start + .seconds(5))
        let result10 = machine.openFailed(now: start)
        #expect(result10.delivered == [Delivery(waiter: 3, outcome: "open")])
        let result11 = machine.openFailed(now: start)
        #expect(result11.isEmpty)
        #expect(machine.statistics.inUse == 0)
    }

    @Test func waitersPastTheirDeadlineAreFailedNotServed() {
        var machine = Machine(maxConnections: 1)
        _ = machine.leaseRequested()
        _ = machine.enqueue(1, deadline: start + .seconds(1))
        _ = machine.enqueue(2, deadline: start + .seconds(10))
        let actions = machine.released("a", reusable: true, now: start + .seconds(2))
        #expect(actions.delivered == [Delivery(waiter: 1, outcome: "timedOut"), Delivery(waiter: 2, outcome: "use a")])
    }

    @Test func timedOutWaiterIsRemovedOnlyWhileQueued() {
        var machine = Machine(maxConnections: 1)
        _ = machine.leaseRequested()
        let early = machine.enqueue(1, deadline: start + .seconds(1))
        let late = machine.enqueue(2, deadline: start + .seconds(1))
        let result12 = machine.waiterTimedOut(early)
        #expect(result12)
        #expect(machine.statistics.waiters == 1)
        _ = machine.released("a", reusable: true, now: start)
        // Served before it noticed its deadline: it must take the delivery.
        let result13 = machine.waiterTimedOut(late)
        #expect(!result13)
    }

    @Test func closeFailsWaiters() {
        var machine = Machine(maxConnections: 1)
        _ = machine.leaseRequested()
        _ = machine.enqueue(5, deadline: start + .seconds(5))
        let result14 = machine.close()
        #expect(result14.delivered == [Delivery(waiter: 5, outcome: "closed")])
        #expect(machine.statistics.waiters == 0)
    }

    @Test func closeClosesIdleConnectionsAndLeasedOnesOnReturn() {
        var machine = Machine(maxConnections: 2)
        _ = machine.leaseRequested()
        _ = machine.leaseRequested()
        _ = machine.released("a", reusable: true, now: start)

        let result15 = machine.close()
        #expect(result15.closed == ["a"])
        #expect(machine.isClosed)
        let result16 = machine.released("b", reusable: true, now: start)
        #expect(result16.closed == ["b"])
        let result17 = machine.leaseRequested()
        #expect(result17.failure == .closed)
        let result18 = machine.close()
        #expect(result18.isEmpty)
        #expect(machine.statistics == PostgresPoolStatistics(inUse: 0, idle: 0, waiters: 0, maxConnections: 2, totalCreated: 0))
    }
}

struct Delivery: Equatable {
    let waiter: Int
    let outcome: String
}

extension PoolStateMachine<String, Int>.LeaseDecision {
    var isOpen: Bool {
        if case .open = self { return true }
        return false
    }

    var isMustWait: Bool {
        if case .mustWait = self { return true }
        return false
    }

    var connection: String? {
        if case .use(let connection) = self { return connection }
        return nil
    }

    var failure: PoolStateMachine<String, Int>.Failure? {
        if case .fail(let failure) = self { return failure }
        return nil
    }
}

extension [PoolStateMachine<String, Int>.Action] {
    var delivered: [Delivery] {
        compactMap { action in
            guard case .deliver(let outcome, let waiter) = action else { return nil }
            switch outcome {
            case .use(let connection): return Delivery(waiter: waiter, outcome: "use \(connection)")
            case .open: return Delivery(waiter: waiter, outcome: "open")
            case .fail(let failure): return Delivery(waiter: waiter, outcome: "\(failure)")
            }
        }
    }

    var closed: [String] {
        compactMap { action in
            guard case .close(let connection) = action else { return nil }
            return connection
        }
    }
}
