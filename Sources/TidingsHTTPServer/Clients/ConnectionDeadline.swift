/// When what a connection is doing must be done: receiving a request (head
/// and body together, however steadily they trickle in; the idle timeout
/// only catches silence), or handing a response to the client. Also says
/// whether, and how readily, the connection may be shed for a newcomer at
/// the connection limit. A value-type state machine fed with instants, so
/// it is tested without sockets or sleeping.
///
/// libmicrohttpd reports no first byte of a request, only its complete
/// request line, so the receive clock starts where it can:
/// - on a new connection, when it opens;
/// - on a keep-alive connection, when the request line arrives, but no
///   later than the idle timeout after the previous response (beyond that
///   the client was either silent, and the idle timeout closed it, or was
///   dribbling the request line).
///
/// The send clock starts when the response is queued and stops when
/// libmicrohttpd reports it finished, which is when its last byte is in the
/// kernel's send buffer: a client that reads slowly has until then. A
/// stream has no send deadline of its own here: each `HTTPResponseStream`
/// bounds how long its client may lag.
struct ConnectionDeadline: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// Why a connection was closed from outside libmicrohttpd.
    enum Cut: Equatable, Sendable {
        /// The request was not in by its deadline.
        case request
        /// The response was not taken by its deadline.
        case response
        /// Shed at the connection limit for a client holding fewer.
        case shed
    }

    enum Phase: Equatable, Sendable {
        /// Receiving a request, or waiting for the next one, until `until`.
        case receiving(until: Instant)
        /// The request is complete and its handler runs: bounded by the
        /// handler's own timeouts, not here.
        case answering
        /// The response is queued: the client must take it by `until`.
        case sending(until: Instant)
        /// A streamed response is open (bounded by the stream itself).
        case streaming
        /// Closed from outside; the connection is going.
        case cut(Cut)
    }

    private(set) var phase: Phase
    /// When `phase` began: among connections equally sheddable, the one
    /// stuck longest goes first.
    private(set) var phaseBegan: Instant
    /// Whether a request line arrived since the last response; only then
    /// does a cut answer 408 (a connection that never sent a request is
    /// closed silently, as browsers open spare ones).
    private(set) var requestUnderway = false
    /// The id of the request underway once its head is in, or the one a cut
    /// gave it, so the 408 and the access log agree.
    private(set) var requestID: String?
    let requestTimeout: Duration
    let idleTimeout: Duration
    let responseTimeout: Duration

    init(openedAt now: Instant, requestTimeout: Duration, idleTimeout: Duration, responseTimeout: Duration) {
        phase = .receiving(until: now + requestTimeout)
        phaseBegan = now
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.responseTimeout = responseTimeout
    }

    var cut: Cut? {
        if case .cut(let cut) = phase { cut } else { nil }
    }

    mutating func requestLineArrived(at now: Instant) {
        requestUnderway = true
        if case .receiving(let until) = phase {
            phase = .receiving(until: min(until, now + requestTimeout))
            phaseBegan = now
        }
    }

    mutating func headReceived(requestID: String) {
        self.requestID = requestID
    }

    /// The whole request is in, or it is answered from its head alone.
    /// False when a cut came first: then it must not be answered.
    mutating func requestReceived() -> Bool {
        guard cut == nil else { return false }
        phase = .answering
        return true
    }

    /// A response is queued: its client has the response timeout to take it.
    mutating func responseQueued(at now: Instant) {
        guard cut == nil else { return }
        phase = .sending(until: now + responseTimeout)
        phaseBegan = now
    }

    /// A streamed response is queued: it bounds itself.
    mutating func streamStarted(at now: Instant) {
        guard cut == nil else { return }
        phase = .streaming
        phaseBegan = now
    }

    /// The response went out; a keep-alive connection now waits for its
    /// next request.
    mutating func responseFinished(at now: Instant) {
        guard cut == nil else { return }
        phase = .receiving(until: now + idleTimeout + requestTimeout)
        phaseBegan = now
        requestUnderway = false
        requestID = nil
    }

    /// The cut, once, when a deadline has passed; the caller then closes
    /// the connection. `newRequestID` names a request underway whose head
    /// never arrived.
    mutating func cutIfOverdue(at now: Instant, newRequestID: () -> String) -> Cut? {
        switch phase {
        case .receiving(let until) where until <= now:
            phase = .cut(.request)
            if requestUnderway, requestID == nil { requestID = newRequestID() }
            return .request
        case .sending(let until) where until <= now:
            phase = .cut(.response)
            return .response
        default:
            return nil
        }
    }

    /// How readily the connection may be shed, lowest first, or nil when
    /// it may not be: an idle keep-alive connection costs its client only a
    /// reconnection, a request still arriving or a response still leaving
    /// has been slow so far. A running handler would be wasted, a stream
    /// is bounded by its own limits, and a cut connection is going anyway.
    var sheddingRank: Int? {
        switch phase {
        case .receiving: requestUnderway ? 1 : 0
        case .sending: 2
        case .answering, .streaming, .cut: nil
        }
    }

    /// Marks the connection shed; false when it may not be (any more).
    mutating func shed() -> Bool {
        guard sheddingRank != nil else { return false }
        phase = .cut(.shed)
        return true
    }
}
