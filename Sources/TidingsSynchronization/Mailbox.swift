package import Dispatch

/// A one-shot hand-off between two threads: one delivers a value once, the
/// other waits for it (with or without a time limit) or leaves. The one
/// shape behind the pool's waiters, group commit's slots and a check asked
/// for through the API.
///
/// Each mailbox has its own semaphore, so delivering to one never wakes
/// another waiter. Only one thread waits on a mailbox.
package final class Mailbox<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case delivered(Value)
        case taken
        /// The receiver stopped waiting: a delivery is refused, and the
        /// sender keeps what it would have handed over.
        case abandoned
    }

    private let semaphore = DispatchSemaphore(value: 0)
    private let state = AdaptiveMutex(State.empty)

    package init() {}

    /// Hands `value` over. False when the receiver has left (`abandon`):
    /// the value is then still the sender's to deal with. A second
    /// delivery is a programming error.
    @discardableResult
    package func deliver(_ value: Value) -> Bool {
        let accepted = state.withLock { state -> Bool in
            switch state {
            case .empty:
                state = .delivered(value)
                return true
            case .abandoned:
                return false
            case .delivered, .taken:
                preconditionFailure("a mailbox was delivered to twice")
            }
        }
        if accepted { semaphore.signal() }
        return accepted
    }

    /// Waits for the value.
    package func wait() -> Value {
        semaphore.wait()
        return take()
    }

    /// The value, or nil when `timeout` passed first. After nil the
    /// receiver may `wait()` again (for a value it knows is coming) or
    /// `abandon()`.
    package func wait(timeout: Duration) -> Value? {
        guard semaphore.wait(timeout: timeout.dispatchDeadline) == .success else { return nil }
        return take()
    }

    /// The value, or nil when `deadline` passed first.
    package func wait(until deadline: ContinuousClock.Instant) -> Value? {
        wait(timeout: max(ContinuousClock.now.duration(to: deadline), .zero))
    }

    /// The receiver leaves: later deliveries are refused. Returns the
    /// value when it had arrived meanwhile (the receiver then has it after
    /// all), nil when the mailbox is now abandoned.
    package func abandon() -> Value? {
        state.withLock { state -> Value? in
            switch state {
            case .empty:
                state = .abandoned
                return nil
            case .delivered(let value):
                state = .taken
                return value
            case .taken, .abandoned:
                preconditionFailure("a mailbox was left after its value was taken")
            }
        }
    }

    private func take() -> Value {
        state.withLock { state in
            guard case .delivered(let value) = state else { preconditionFailure("a mailbox was signalled without a value") }
            state = .taken
            return value
        }
    }
}
