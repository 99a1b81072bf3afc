import TidingsSynchronization

/// Connects a task's cancellation handler to the transfer it started. The
/// handler can run before the transfer is submitted, so whichever side comes
/// second is the one that asks the driver to cancel.
final class CancellationRelay: Sendable {
    private enum State {
        case waiting
        case submitted(UInt64)
        case cancelled
    }

    private let state = AdaptiveMutex(State.waiting)

    /// Records the submitted transfer; true if the task was already cancelled.
    func submitted(_ id: UInt64) -> Bool {
        state.withLock { state in
            if case .cancelled = state { return true }
            state = .submitted(id)
            return false
        }
    }

    /// Marks the task cancelled; returns the transfer to cancel, if submitted.
    func cancel() -> UInt64? {
        state.withLock { state in
            defer { state = .cancelled }
            if case .submitted(let id) = state { return id }
            return nil
        }
    }
}
