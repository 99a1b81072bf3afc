import TidingsSynchronization

/// A request's answer on its way from a handler thread back to its
/// suspended connection. Whichever comes first settles it: the handler's
/// response, or shutdown giving up on it after the grace period (the
/// connection is then closed unanswered, as a connection thread's would
/// be). Either one resumes the connection, exactly once, under the lock.
final class HandlerAnswer: Sendable {
    private enum State {
        case waiting(SuspendableConnection)
        case answered(HTTPResponse)
        case abandoned
    }

    private let state: AdaptiveMutex<State>

    /// `connection` must be suspended already.
    init(suspended connection: SuspendableConnection) {
        state = AdaptiveMutex(.waiting(connection))
    }

    var isAbandoned: Bool {
        state.withLock { if case .abandoned = $0 { true } else { false } }
    }

    /// Stores the response and resumes the connection. `settle` runs first,
    /// under the lock, so what it records about the request cannot race
    /// with an abandonment. False when abandoned: nothing runs.
    func deliver(_ response: HTTPResponse, settle: (HTTPResponse) -> HTTPResponse) -> Bool {
        state.withLock { state in
            guard case .waiting(let connection) = state else { return false }
            state = .answered(settle(response))
            connection.resume()
            return true
        }
    }

    /// Resumes the connection without an answer unless one was delivered.
    func abandon() {
        state.withLock { state in
            guard case .waiting(let connection) = state else { return }
            state = .abandoned
            connection.resume()
        }
    }

    /// The delivered response, read on the polling thread once resumed;
    /// nil when abandoned.
    var response: HTTPResponse? {
        state.withLock { state in
            if case .answered(let response) = state { response } else { nil }
        }
    }
}
