import Dispatch
import Synchronization
import TidingsObservability
import TidingsSynchronization

/// Everything the server does per request that does not touch C: admission
/// limits, calling the responder (inline, or on the handler pool), turning
/// errors into problems, streams, and the access log and metrics. The
/// libmicrohttpd callbacks drive it.
final class RequestPipeline: Sendable {
    private static let genericFailureDetail = "An internal error occurred."

    /// What holds a connection suspended, which shutdown must settle before
    /// libmicrohttpd may stop (it aborts on a suspended connection).
    private struct Suspensions {
        /// Requests with the handler pool.
        var answers: [ObjectIdentifier: HandlerAnswer] = [:]
        var streams: [ObjectIdentifier: HTTPResponseStream] = [:]
        /// Set once shutdown has given up on handlers: no more are started.
        var handlersClosed = false
        /// Set once shutdown ends the streams: later ones end as they start.
        var streamsEnding = false
    }

    let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let logger: Logger
    let metrics: HTTPServerMetrics
    let clients: ClientConnections
    /// Runs the handlers with `.suspending`; nil where they run inline.
    let handlers: ThreadPool?
    private let draining = Atomic<Bool>(false)
    /// Entered when a request line arrives, left when the request finishes,
    /// so shutdown can wait for exactly the requests in flight.
    private let inFlight = DispatchGroup()
    private let suspensions = AdaptiveMutex(Suspensions())

    init(
        configuration: HTTPServerConfiguration,
        responder: any HTTPResponder,
        logger: Logger,
        metrics: HTTPServerMetrics,
        handlers: ThreadPool?
    ) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.metrics = metrics
        self.handlers = handlers
        clients = ClientConnections(configuration: configuration, logger: logger, metrics: metrics)
    }

    // MARK: Lifecycle

    /// The request line arrived on `client`: its deadline now runs from
    /// here (see `ConnectionDeadline`).
    func requestStarted(targetLength: Int, client: ClientConnection) -> InFlightRequest {
        inFlight.enter()
        let request = InFlightRequest(targetLength: targetLength, client: client)
        client.deadline.withLock { $0.requestLineArrived(at: request.startedAt) }
        return request
    }

    /// Stops keep-alive: every later response carries `Connection: close`.
    var isDraining: Bool {
        draining.load(ordering: .relaxed)
    }

    func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Waits until no request is in flight; false if `timeout` ran out first.
    func waitForInFlightRequests(timeout: Duration) -> Bool {
        inFlight.wait(timeout: timeout.dispatchDeadline) == .success
    }

    /// Ends every open stream cleanly (`.serverShutdown`), and those that
    /// start later as they start.
    func endStreams() {
        let open = suspensions.withLock { suspensions in
            suspensions.streamsEnding = true
            return Array(suspensions.streams.values)
        }
        for stream in open { stream.end(.serverShutdown) }
    }

    /// Resumes the connections whose handlers still run, to be closed
    /// unanswered, and starts no more: libmicrohttpd must not stop with a
    /// suspended connection. The handlers finish on their own threads and
    /// their answers are dropped.
    func abandonHandlers() {
        let waiting = suspensions.withLock { suspensions in
            suspensions.handlersClosed = true
            return Array(suspensions.answers.values)
        }
        for answer in waiting { answer.abandon() }
    }

    var openStreams: Int {
        suspensions.withLock { $0.streams.count }
    }

    // MARK: Requests

    /// Checks the limits that can be judged from the head of the request, so
    /// an ambiguous body is refused before any of it is read (an oversized
    /// one: `announcedBody`).
    func admissionProblem(for request: InFlightRequest, headerCount: Int, headerBytes: Int, framing: RequestFraming) -> HTTPError? {
        if request.targetLength > configuration.maxURLLength {
            return HTTPError(.uriTooLong, detail: "The request target exceeds \(configuration.maxURLLength) bytes.")
        }
        if headerCount > configuration.maxHeaderCount {
            return HTTPError(
                .requestHeaderFieldsTooLarge,
                detail: "The request has more than \(configuration.maxHeaderCount) header fields."
            )
        }
        if headerBytes > configuration.maxHeaderBytes {
            return HTTPError(
                .requestHeaderFieldsTooLarge,
                detail: "The request header fields exceed \(configuration.maxHeaderBytes) bytes."
            )
        }
        return framing.problem
    }

    /// What becomes of a body whose announced length is over the path's
    /// limit. Closing on a client that is still sending makes the kernel
    /// reset the connection, and most clients then report the reset, not
    /// the 413 (curl: "Send failure: Connection reset by peer"). So the
    /// body is read and thrown away before the answer, unless the client
    /// waits for "100 Continue" before sending it, or it is past the drain
    /// allowance; then the answer goes at once and the connection closes.
    func announcedBody(framing: RequestFraming, expectsContinue: Bool, path: String) -> AnnouncedBody {
        guard let announced = framing.contentLengths.first else { return .withinLimit }
        let limit = UInt64(configuration.maxBodySize(forPath: path))
        let length = UInt64(announced) ?? .max
        guard length > limit else { return .withinLimit }
        if expectsContinue || length - limit > UInt64(bodyDrainAllowance(forPath: path)) {
            return .refusedUnread
        }
        return .drainedThenRefused
    }

    /// How far past its limit a body is still read to answer 413 at its
    /// end: as much again.
    func bodyDrainAllowance(forPath path: String) -> Int {
        configuration.maxBodySize(forPath: path)
    }

    func payloadTooLarge(path: String) -> HTTPError {
        HTTPError(.payloadTooLarge, detail: "The request body exceeds \(configuration.maxBodySize(forPath: path)) bytes.")
    }

    /// Runs the responder inline, on the connection's thread.
    func respond(to request: HTTPRequest, state: InFlightRequest) -> HTTPResponse {
        let (response, route) = produce(request, requestID: state.requestID)
        state.route = route
        return finalize(response, state: state)
    }

    /// Suspends the connection and runs the responder on the handler pool,
    /// taking turns between clients; the answer resumes the connection
    /// (`HandlerAnswer`). False once shutdown has given up on handlers:
    /// the connection is to be closed instead.
    func dispatch(_ request: HTTPRequest, state: InFlightRequest, connection: SuspendableConnection, handlers: ThreadPool) -> Bool {
        // Suspended under the lock, so `abandonHandlers` sees every
        // suspended request or none is suspended after it.
        let registered: HandlerAnswer? = suspensions.withLock { suspensions in
            guard !suspensions.handlersClosed else { return nil }
            connection.suspend()
            let answer = HandlerAnswer(suspended: connection)
            suspensions.answers[ObjectIdentifier(answer)] = answer
            return answer
        }
        guard let answer = registered else { return false }
        state.answer = answer
        state.phase = .handling
        let requestID = state.requestID
        // A direct client's /64 or address; behind a proxy, the client it names.
        let fairnessKey = state.client.capKey.map(AnyHashable.init) ?? state.remoteAddress.map(AnyHashable.init)
        handlers.submit(fairnessKey: fairnessKey) { [self] in
            defer { _ = suspensions.withLock { $0.answers.removeValue(forKey: ObjectIdentifier(answer)) } }
            // Queued past the grace period: nobody waits for it any more.
            guard !answer.isAbandoned else { return }
            let (response, route) = produce(request, requestID: requestID)
            let delivered = answer.deliver(response) { response in
                state.route = route
                return finalize(response, state: state)
            }
            if !delivered { response.stream?.decline(.notServed) }
        }
        return true
    }

    /// A streamed response is about to be queued: shutdown will end it.
    func streamStarted(_ stream: HTTPResponseStream) {
        let ending = suspensions.withLock { suspensions in
            suspensions.streams[ObjectIdentifier(stream)] = stream
            return suspensions.streamsEnding
        }
        if ending { stream.end(.serverShutdown) }
    }

    /// Calls the responder and returns its response and the matched route.
    /// Errors become problem responses; anything other than `HTTPError` is
    /// logged and answered with a generic 500, and so is a stream where
    /// handlers run inline (it would hold the thread).
    private func produce(_ request: HTTPRequest, requestID: String) -> (HTTPResponse, String?) {
        var requestLogger = logger
        requestLogger[metadataKey: "request.id"] = requestID
        let recorder = RouteRecorder()
        let context = RequestContext(
            requestID: requestID,
            logger: requestLogger,
            routeTemplate: "",
            pathParameters: [:],
            routeRecorder: recorder
        )
        var response: HTTPResponse
        do {
            response = try responder.respond(to: request, context: context)
        } catch let error as HTTPError {
            if error.status.code >= 500 {
                requestLogger.error("handler answered with a server error", metadata: ["http.status": String(error.status.code)])
            }
            response = error.response(requestID: requestID)
        } catch {
            requestLogger.error("handler failed", metadata: ["error": String(describing: error)])
            response = HTTPError(.internalServerError, detail: Self.genericFailureDetail).response(requestID: requestID)
        }
        if let stream = response.stream, handlers == nil {
            requestLogger.error(
                "a streamed response needs the suspending threading mode",
                metadata: [
                    "http.threading": configuration.threading.description
                ])
            stream.decline(.notServed)
            response = HTTPError(.internalServerError, detail: Self.genericFailureDetail).response(requestID: requestID)
        }
        return (response, recorder.matchedTemplate)
    }

    /// The problem response for a request refused before reaching the responder.
    func reject(_ error: HTTPError, state: InFlightRequest) -> HTTPResponse {
        finalize(error.response(requestID: state.requestID), state: state)
    }

    private func finalize(_ response: HTTPResponse, state: InFlightRequest) -> HTTPResponse {
        var response = response
        response.headers.replaceOrAdd(name: "X-Request-Id", value: state.requestID)
        if draining.load(ordering: .relaxed) {
            response.headers.replaceOrAdd(name: "Connection", value: "close")
        }
        state.status = response.status
        // A stream's bytes are counted when it ends.
        state.bytesOut = state.method == .head || response.stream != nil ? 0 : response.body.count
        return response
    }

    /// Writes the access log line and metrics once the request is over.
    /// `termination` is nil for a normally completed response.
    func requestFinished(_ state: InFlightRequest, termination: String?) {
        defer { inFlight.leave() }
        var termination = termination
        let cut = state.client.deadline.withLock { deadline -> ConnectionDeadline.Cut? in
            guard let cut = deadline.cut else {
                deadline.responseFinished(at: .now)
                return nil
            }
            if state.requestID.isEmpty { state.requestID = deadline.requestID ?? "" }
            return cut
        }
        switch cut {
        case .request:
            // The watchdog answered 408 on the socket and closed it.
            termination = "request_timeout"
            state.status = .requestTimeout
        case .response:
            // The response's status stands; its body was cut short.
            termination = "response_timeout"
        case .shed:
            termination = "shed"
        case nil:
            break
        }
        var streamEnd: HTTPResponseStream.CloseReason?
        if let stream = state.stream {
            let reason = stream.connectionEnded(completedNormally: termination == nil)
            suspensions.withLock { _ = $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
            state.bytesOut = stream.bytesSent
            metrics.streamsClosed.increment(labels: ["reason": reason.rawValue])
            if reason == .responseTimeout { metrics.responseTimeouts.increment() }
            streamEnd = reason
        }
        let elapsed = ContinuousClock.now - state.startedAt
        let route = state.route ?? HTTPServerMetrics.unmatchedRoute
        if let status = state.status {
            metrics.record(method: state.method, route: route, status: status, seconds: elapsed.inSeconds)
        }
        writeAccessLog(state, route: route, elapsed: elapsed, termination: termination, streamEnd: streamEnd)
    }

    /// One line per request; the fields are only assembled when it is logged.
    /// A stream's line is written when it ends, with its whole duration,
    /// its bytes and why it closed.
    private func writeAccessLog(
        _ state: InFlightRequest,
        route: String,
        elapsed: Duration,
        termination: String?,
        streamEnd: HTTPResponseStream.CloseReason?
    ) {
        guard logger.isEnabled(.info) else { return }
        var fields = [String: String](minimumCapacity: 10)
        fields["http.method"] = state.method.rawValue
        fields["http.route"] = route
        fields["http.path"] = state.path
        fields["http.duration_ms"] = Self.milliseconds(elapsed)
        fields["request.id"] = state.requestID
        if let remoteAddress = state.remoteAddress { fields["client.address"] = remoteAddress }
        if state.client.isTrustedProxy, let proxy = state.client.peerDescription { fields["network.peer.address"] = proxy }
        if let termination { fields["termination"] = termination }
        if let streamEnd { fields["http.stream.close_reason"] = streamEnd.rawValue }
        guard let status = state.status else {
            // libmicrohttpd answered on its own (malformed or oversized head)
            // or the client went away before a response existed.
            logger.info("request ended without a response", metadata: fields)
            return
        }
        fields["http.status"] = String(status.code)
        fields["http.bytes_out"] = String(state.bytesOut)
        logger.info("request completed", metadata: fields)
    }

    /// `12.345`: milliseconds with microsecond precision, built without
    /// Foundation formatting since it runs for every request.
    private static func milliseconds(_ duration: Duration) -> String {
        let microseconds = max(0, duration.inNanoseconds / 1000)
        let fraction = String(microseconds % 1000)
        return String(microseconds / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
