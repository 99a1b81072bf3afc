import Dispatch
import Synchronization
import TidingsObservability
import TidingsSynchronization

/// Everything the server does per request that does not touch C: admission
/// limits, calling the responder, turning errors into problems, and the
/// access log and metrics. The libmicrohttpd callbacks drive it.
final class RequestPipeline: Sendable {
    private static let genericFailureDetail = "An internal error occurred."

    let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let logger: Logger
    let metrics: HTTPServerMetrics
    let clients: ClientConnections
    private let draining = Atomic<Bool>(false)
    /// Entered when a request line arrives, left when the request finishes,
    /// so shutdown can wait for exactly the requests in flight.
    private let inFlight = DispatchGroup()

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger, metrics: HTTPServerMetrics) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.metrics = metrics
        clients = ClientConnections(configuration: configuration, logger: logger, metrics: metrics)
    }

    // MARK: Lifecycle

    /// The request line arrived on `client`: its deadline now runs from
    /// here (see `ReceiveDeadline`).
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

    // MARK: Requests

    /// Checks the limits that can be judged from the head of the request, so
    /// an oversized upload or an ambiguous body is refused before any of
    /// its body is read.
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
        if let problem = framing.problem {
            return problem
        }
        if let contentLength = framing.contentLengths.first, UInt64(contentLength) ?? .max > UInt64(configuration.maxBodySize) {
            return payloadTooLarge
        }
        return nil
    }

    var payloadTooLarge: HTTPError {
        HTTPError(.payloadTooLarge, detail: "The request body exceeds \(configuration.maxBodySize) bytes.")
    }

    /// Runs the responder. Errors become problem responses; anything other
    /// than `HTTPError` is logged and answered with a generic 500.
    func respond(to request: HTTPRequest, state: InFlightRequest) -> HTTPResponse {
        var requestLogger = logger
        requestLogger[metadataKey: "request.id"] = state.requestID
        let recorder = RouteRecorder()
        let context = RequestContext(
            requestID: state.requestID,
            logger: requestLogger,
            routeTemplate: "",
            pathParameters: [:],
            routeRecorder: recorder
        )
        let response: HTTPResponse
        do {
            response = try responder.respond(to: request, context: context)
        } catch let error as HTTPError {
            if error.status.code >= 500 {
                requestLogger.error("handler answered with a server error", metadata: ["http.status": String(error.status.code)])
            }
            response = error.response(requestID: state.requestID)
        } catch {
            requestLogger.error("handler failed", metadata: ["error": String(describing: error)])
            response = HTTPError(.internalServerError, detail: Self.genericFailureDetail).response(requestID: state.requestID)
        }
        state.route = recorder.matchedTemplate
        return finalize(response, state: state)
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
        state.bytesOut = state.method == .head ? 0 : response.body.count
        state.phase = .responded
        return response
    }

    /// Writes the access log line and metrics once the request is over.
    /// `termination` is nil for a normally completed response.
    func requestFinished(_ state: InFlightRequest, termination: String?) {
        defer { inFlight.leave() }
        var termination = termination
        let wasCut = state.client.deadline.withLock { deadline in
            guard deadline.phase == .cut else {
                deadline.responseFinished(at: .now)
                return false
            }
            if state.requestID.isEmpty { state.requestID = deadline.requestID ?? "" }
            return true
        }
        if wasCut {
            // The watchdog answered 408 on the socket and closed it.
            termination = "request_timeout"
            state.status = .requestTimeout
        }
        let elapsed = ContinuousClock.now - state.startedAt
        let route = state.route ?? HTTPServerMetrics.unmatchedRoute
        if let status = state.status {
            metrics.record(method: state.method, route: route, status: status, seconds: elapsed.inSeconds)
        }
        writeAccessLog(state, route: route, elapsed: elapsed, termination: termination)
    }

    /// One line per request; the fields are only assembled when it is logged.
    private func writeAccessLog(_ state: InFlightRequest, route: String, elapsed: Duration, termination: String?) {
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
