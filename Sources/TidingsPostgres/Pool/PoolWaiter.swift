import Dispatch
import TidingsSynchronization

/// A caller blocked until the pool hands it a connection, a slot to open one
/// in, or a failure. Each waiter has its own semaphore, so waking one never
/// wakes the others.
final class PoolWaiter: Sendable {
    typealias Outcome = PoolStateMachine<PooledConnection, PoolWaiter>.WaiterOutcome

    private let semaphore = DispatchSemaphore(value: 0)
    private let outcome = AdaptiveMutex<Outcome?>(nil)

    func deliver(_ outcome: Outcome) {
        self.outcome.withLock { $0 = outcome }
        semaphore.signal()
    }

    /// The delivered outcome, or nil when `timeout` passed first.
    func wait(timeout: Duration) -> Outcome? {
        guard semaphore.wait(timeout: timeout.dispatchDeadline) == .success else { return nil }
        return takeOutcome()
    }

    /// For a waiter the pool had already served when it timed out: the
    /// outcome is being delivered and arrives at once.
    func waitForDelivery() -> Outcome {
        semaphore.wait()
        return takeOutcome()
    }

    private func takeOutcome() -> Outcome {
        outcome.withLock { outcome in
            guard let delivered = outcome.take() else { preconditionFailure("a waiter was signalled without an outcome") }
            return delivered
        }
    }
}
