/// When the request a connection is receiving must be complete: head and
/// body together, however steadily they trickle in (the idle timeout only
/// catches silence). A value-type state machine fed with instants, so it
/// is tested without sockets or sleeping.
///
/// libmicrohttpd reports no first byte of a request, only its complete
/// request line, so the clock starts where it can:
/// - on a new connection, when it opens;
/// - on a keep-alive connection, when the request line arrives, but no
///   later than the idle timeout after the previous response (beyond that
///   the client was either silent, and the idle timeout closed it, or was
///   dribbling the request line).
struct ReceiveDeadline: Sendable {
    typealias Instant = ContinuousClock.Instant

    enum Phase: Equatable, Sendable {
        /// Receiving a request, or waiting for the next one, until `until`.
        case receiving(until: Instant)
        /// The request is complete: its handler runs and its response goes
        /// out, bounded by the idle timeout only.
        case answering
        /// The deadline passed; the connection is being closed.
        case cut
    }

    private(set) var phase: Phase
    /// Whether a request line arrived since the last response; only then
    /// does a cut answer 408 (a connection that never sent a request is
    /// closed silently, as browsers open spare ones).
    private(set) var requestUnderway = false
    /// The id of the request underway once its head is in, or the one a cut
    /// gave it, so the 408 and the access log agree.
    private(set) var requestID: String?
    let requestTimeout: Duration
    let idleTimeout: Duration

    init(openedAt now: Instant, requestTimeout: Duration, idleTimeout: Duration) {
        phase = .receiving(until: now + requestTimeout)
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
    }

    mutating func requestLineArrived(at now: Instant) {
        requestUnderway = true
        if case let .receiving(until) = phase {
            phase = .receiving(until: min(until, now + requestTimeout))
        }
    }

    mutating func headReceived(requestID: String) {
        self.requestID = requestID
    }

    /// The whole request is in, or it is answered from its head alone.
    /// False when the deadline cut it first: then it must not be answered.
    mutating func requestReceived() -> Bool {
        guard phase != .cut else { return false }
        phase = .answering
        return true
    }

    /// The response went out; a keep-alive connection now waits for its
    /// next request.
    mutating func responseFinished(at now: Instant) {
        guard phase != .cut else { return }
        phase = .receiving(until: now + idleTimeout + requestTimeout)
        requestUnderway = false
        requestID = nil
    }

    /// True once, when the deadline has passed; the caller then closes the
    /// connection. `newRequestID` names a request underway whose head never
    /// arrived.
    mutating func cutIfOverdue(at now: Instant, newRequestID: () -> String) -> Bool {
        guard case let .receiving(until) = phase, until <= now else { return false }
        phase = .cut
        if requestUnderway, requestID == nil { requestID = newRequestID() }
        return true
    }
}
