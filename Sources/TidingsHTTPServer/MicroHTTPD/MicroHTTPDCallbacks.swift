internal import CMicroHTTPD
internal import CTidingsShims
import TidingsIP
import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#endif

/// The C entry points libmicrohttpd calls on its worker threads. Each
/// receives the `RequestPipeline` as `cls` (kept alive by the daemon) and the
/// request's `InFlightRequest` through `req_cls`: retained when the request
/// line arrives, released when MHD reports the request finished, which it
/// does for completed, failed, timed-out and aborted requests alike. A
/// stream's content reader gets its `HTTPResponseStream` as `cls`, retained
/// by the response and released when MHD frees it.
enum MicroHTTPDCallbacks {
    /// Once the server drains, new connections are closed as soon as they
    /// are accepted; those already open finish their requests. A client
    /// already holding its share of connections gets none more.
    static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
        let pipeline = Unmanaged<RequestPipeline>.fromOpaque(cls!).takeUnretainedValue()
        guard !pipeline.isDraining else { return .NO }
        return pipeline.clients.admits(address.flatMap { IPAddress(socketAddressOfItsFamily: $0)?.unmapped }) ? .YES : .NO
    }

    /// Keeps `ClientConnections` in step with libmicrohttpd: each started
    /// connection gets a retained `ClientConnection` as its socket context,
    /// released when it closes (notifications come in pairs, and before
    /// the socket is closed).
    static let connectionChanged: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
        guard let cls, let connection, let socketContext else { return }
        let pipeline = Unmanaged<RequestPipeline>.fromOpaque(cls).takeUnretainedValue()
        let handle = MicroHTTPDConnection(handle: connection)
        if event == .CONNECTION_NOTIFY_STARTED {
            guard let socket = handle.socket() else { return }
            // nil: over its client's cap and shut down; without a socket
            // context its requests are refused too.
            guard let client = pipeline.clients.opened(socket: socket, peer: handle.peerAddress()) else { return }
            socketContext.pointee = Unmanaged.passRetained(client).toOpaque()
        } else if let stored = socketContext.pointee {
            socketContext.pointee = nil
            pipeline.clients.closed(Unmanaged<ClientConnection>.fromOpaque(stored).takeRetainedValue())
        }
    }

    /// Starts the request's state, or refuses it (nil) on a connection that
    /// was refused when it started.
    static let requestLine: CTidingsShims_MHD_uri_log_callback = { cls, uri, connection in
        let pipeline = Unmanaged<RequestPipeline>.fromOpaque(cls!).takeUnretainedValue()
        guard let connection, let client = MicroHTTPDConnection(handle: connection).client() else { return nil }
        let state = pipeline.requestStarted(targetLength: uri.map { Int(strlen($0)) } ?? 0, client: client)
        return Unmanaged.passRetained(state).toOpaque()
    }

    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, requestContext in
        guard let cls, let handle = connection, let uploadDataSize, let stored = requestContext?.pointee else {
            return .NO
        }
        let pipeline = Unmanaged<RequestPipeline>.fromOpaque(cls).takeUnretainedValue()
        let state = Unmanaged<InFlightRequest>.fromOpaque(stored).takeUnretainedValue()
        let connection = MicroHTTPDConnection(handle: handle)

        switch state.phase {
        case .started:
            state.method = HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "")
            state.path = url.map { String(cString: $0) } ?? "/"
            state.requestID = RequestID.accepting(connection.headerValue("X-Request-Id"))
            state.client.deadline.withLock { $0.headReceived(requestID: state.requestID) }
            state.remoteAddress = pipeline.clients.clientAddress(of: state.client) {
                connection.headerValues("X-Forwarded-For")
            }
            let headerStatistics = connection.headerStatistics()
            let framing = RequestFraming(
                contentLengths: connection.headerValues("Content-Length"),
                transferEncodings: connection.headerValues("Transfer-Encoding"),
                hasMalformedFieldName: headerStatistics.hasMalformedName
            )
            let expectsContinue = connection.headerValue("Expect").map { HTTPHeaders.namesMatch($0, "100-continue") } ?? false
            let announcedBody = pipeline.announcedBody(framing: framing, expectsContinue: expectsContinue, path: state.path)
            let problem =
                pipeline.admissionProblem(
                    for: state,
                    headerCount: headerStatistics.count,
                    headerBytes: headerStatistics.bytes,
                    framing: framing
                ) ?? (announcedBody == .refusedUnread ? pipeline.payloadTooLarge(path: state.path) : nil)
            if let problem {
                // Answering before the body makes MHD close the connection
                // instead of reading the rest of the upload.
                guard state.client.deadline.withLock({ $0.requestReceived() }) else { return .NO }
                return queue(pipeline.reject(problem, state: state), state: state, on: connection, pipeline: pipeline)
            }
            state.bodyLimitExceeded = announcedBody == .drainedThenRefused
            // Answering on this first call would make MHD 0.9.75 drop
            // keep-alive, so wait for the call that follows the body.
            state.phase = .receivingBody
            return .YES

        case .receivingBody where uploadDataSize.pointee > 0:
            let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
            uploadDataSize.pointee = 0
            let limit = pipeline.configuration.maxBodySize(forPath: state.path)
            let drainAllowance = pipeline.bodyDrainAllowance(forPath: state.path)
            return state.receiveBody(chunk, limit: limit, drainAllowance: drainAllowance) ? .YES : .NO

        case .receivingBody:
            // Past the deadline the watchdog has answered 408 already.
            guard state.client.deadline.withLock({ $0.requestReceived() }) else { return .NO }
            if state.bodyLimitExceeded {
                return queue(
                    pipeline.reject(pipeline.payloadTooLarge(path: state.path), state: state), state: state, on: connection,
                    pipeline: pipeline)
            }
            let request = HTTPRequest(
                method: state.method,
                path: state.path,
                queryItems: connection.queryItems(),
                headers: connection.headers(),
                body: state.body,
                remoteAddress: state.remoteAddress
            )
            state.body = []
            guard let handlers = pipeline.handlers else {
                return queue(pipeline.respond(to: request, state: state), state: state, on: connection, pipeline: pipeline)
            }
            // Answered on a later call, once the handler resumes the
            // connection; on this one MHD would also keep keep-alive.
            let dispatched = pipeline.dispatch(request, state: state, connection: SuspendableConnection(connection), handlers: handlers)
            return dispatched ? .YES : .NO

        case .handling:
            // Resumed: by the handler's answer, or by shutdown giving up on
            // it (then the connection closes unanswered).
            guard let response = state.answer?.response else { return .NO }
            state.answer = nil
            return queue(response, state: state, on: connection, pipeline: pipeline)

        case .responded:
            return .YES
        }
    }

    /// Copies what the stream has buffered; with nothing buffered the
    /// stream suspends the connection and 0 is returned, which MHD reads
    /// as "not ready" until the stream resumes it.
    static let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
        guard let cls, let buffer else { return contentReaderFailed }
        let stream = Unmanaged<HTTPResponseStream>.fromOpaque(cls).takeUnretainedValue()
        switch stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) {
        case .bytes(let count): return count
        case .waiting: return 0
        case .ended: return contentReaderEnded
        case .failed: return contentReaderFailed
        }
    }

    static let streamReleased: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<HTTPResponseStream>.fromOpaque(cls).release()
    }

    /// MHD_CONTENT_READER_END_OF_STREAM and _END_WITH_ERROR, macros with a
    /// cast that Swift does not import.
    private static let contentReaderEnded = -1
    private static let contentReaderFailed = -2

    /// Queues `response`, whose client now has the response timeout to
    /// take it; a stream is bound to the connection first, so shutdown can
    /// end it, its reader can suspend the connection, and it can hold its
    /// client to the response timeout piece by piece.
    private static func queue(
        _ response: HTTPResponse,
        state: InFlightRequest,
        on connection: MicroHTTPDConnection,
        pipeline: RequestPipeline
    ) -> MHD_Result {
        state.phase = .responded
        if let stream = response.stream {
            state.client.deadline.withLock { $0.streamStarted(at: .now) }
            stream.attach(
                to: SuspendableConnection(connection),
                socket: state.client.socket,
                responseTimeout: pipeline.configuration.responseTimeout
            )
            state.stream = stream
            pipeline.streamStarted(stream)
        } else {
            state.client.deadline.withLock { $0.responseQueued(at: .now) }
        }
        return connection.queue(response)
    }

    static let completed: MHD_RequestCompletedCallback = { cls, _, requestContext, termination in
        guard let cls, let requestContext, let stored = requestContext.pointee else { return }
        requestContext.pointee = nil
        let pipeline = Unmanaged<RequestPipeline>.fromOpaque(cls).takeUnretainedValue()
        let state = Unmanaged<InFlightRequest>.fromOpaque(stored).takeRetainedValue()
        pipeline.requestFinished(state, termination: describe(termination))
    }

    static let log: CTidingsShims_MHD_log_callback = { cls, message in
        guard let cls, let message else { return }
        Unmanaged<MicroHTTPDLog>.fromOpaque(cls).takeUnretainedValue().record(String(cString: message))
    }

    /// nil for a normal completion, otherwise a short fixed reason.
    private static func describe(_ termination: MHD_RequestTerminationCode) -> String? {
        switch termination {
        case .REQUEST_TERMINATED_COMPLETED_OK: nil
        case .REQUEST_TERMINATED_WITH_ERROR: "error"
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: "idle_timeout"
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: "server_shutdown"
        case .REQUEST_TERMINATED_READ_ERROR: "read_error"
        case .REQUEST_TERMINATED_CLIENT_ABORT: "client_abort"
        }
    }
}
