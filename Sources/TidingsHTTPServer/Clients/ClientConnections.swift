import Dispatch
import TidingsObservability
import TidingsSynchronization

/// The open connections, counted per client address, and the watchdog that
/// closes those whose request is not in by its deadline.
///
/// libmicrohttpd has no deadline for a whole request (its connection
/// timeout is an idle timeout, reset by every byte), and its own per-IP
/// limit cannot exempt a proxy, so both live here. A connection over its
/// client's cap is refused by the accept policy before it costs a thread;
/// the count is kept from libmicrohttpd's start and close notifications,
/// which always come in pairs, unlike the accept policy's verdict.
final class ClientConnections: Sendable {
    private struct Table {
        var open: [ObjectIdentifier: ClientConnection] = [:]
        var perClient: [IPAddress: Int] = [:]
    }

    /// A connection the watchdog closed: logged after the lock is released.
    private struct Cut {
        let client: String?
        let requestID: String?
        let failure: Int32?
    }

    let requestTimeout: Duration
    let idleTimeout: Duration
    let connectionsPerClient: Int
    let trustedProxies: TrustedProxies
    private let logger: Logger
    private let metrics: HTTPServerMetrics
    private let table = AdaptiveMutex(Table())
    private let watchdog = AdaptiveMutex<(any DispatchSourceTimer)?>(nil)

    init(configuration: HTTPServerConfiguration, logger: Logger, metrics: HTTPServerMetrics) {
        requestTimeout = configuration.requestTimeout
        idleTimeout = configuration.connectionIdleTimeout
        connectionsPerClient = configuration.connectionsPerClient
        trustedProxies = configuration.trustedProxies
        self.logger = logger
        self.metrics = metrics
    }

    // MARK: Per-client cap

    /// The accept policy's quick check, before libmicrohttpd spends a thread
    /// or a memory pool on the connection. `opened` decides for certain.
    func admits(_ peer: IPAddress?) -> Bool {
        guard let peer, !trustedProxies.contains(peer) else { return true }
        let key = peer.clientKey
        let admitted = table.withLock { $0.perClient[key, default: 0] < connectionsPerClient }
        if !admitted { refused(peer) }
        return admitted
    }

    /// Registers a connection libmicrohttpd has just accepted. When its
    /// client already holds `connectionsPerClient` connections (several
    /// threads of a pool can pass `admits` at once) the connection is shut
    /// down unanswered instead and nil returned: libmicrohttpd's next read
    /// then ends it.
    func opened(socket: Int32, peer: IPAddress?) -> ClientConnection? {
        let connection = ClientConnection(
            socket: socket,
            peer: peer,
            isTrustedProxy: peer.map(trustedProxies.contains) ?? false,
            deadline: ReceiveDeadline(openedAt: .now, requestTimeout: requestTimeout, idleTimeout: idleTimeout)
        )
        let registered = table.withLock { table in
            if let key = connection.capKey {
                let count = table.perClient[key, default: 0]
                guard count < connectionsPerClient else { return false }
                table.perClient[key] = count + 1
            }
            table.open[ObjectIdentifier(connection)] = connection
            return true
        }
        guard registered else {
            refused(peer)
            if let failure = ConnectionSocket(descriptor: socket).shutDown() {
                logger.warning("could not shut down a refused http connection", metadata: ["errno": String(failure)])
            }
            return nil
        }
        return connection
    }

    func closed(_ connection: ClientConnection) {
        table.withLock { table in
            table.open[ObjectIdentifier(connection)] = nil
            guard let key = connection.capKey, let count = table.perClient[key] else { return }
            table.perClient[key] = count > 1 ? count - 1 : nil
        }
    }

    private func refused(_ peer: IPAddress?) {
        metrics.connectionsRefused.increment()
        // A client hammering the cap should not cost an address to text each time.
        guard logger.isEnabled(.debug) else { return }
        logger.debug("http connection refused: its client holds the most connections allowed", metadata: [
            "client.address": peer?.description ?? "unknown",
            "http.connections_per_client": String(connectionsPerClient),
        ])
    }

    /// The address a request on `connection` comes from: the peer, or for a
    /// trusted proxy the client it names (`forwardedFor` reads the
    /// `X-Forwarded-For` values only then).
    func clientAddress(of connection: ClientConnection, forwardedFor: () -> [String]) -> String? {
        guard connection.isTrustedProxy, let peer = connection.peer else { return connection.peerDescription }
        return trustedProxies.client(peer: peer, forwardedFor: forwardedFor()).description
    }

    // MARK: Deadlines

    /// Starts checking deadlines a few times per request timeout (at most
    /// every second), so a request is cut within a tenth of the timeout or
    /// a second after it, whichever is less.
    func startWatchdog() {
        let period = min(.seconds(1), max(.milliseconds(50), requestTimeout / 10))
        let interval = period.dispatchInterval
        watchdog.withLock { watchdog in
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "tidings.http.deadlines"))
            timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(10))
            timer.setEventHandler { [weak self] in self?.cutOverdueRequests(now: .now) }
            timer.resume()
            watchdog = timer
        }
    }

    func stopWatchdog() {
        watchdog.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// Closes every connection whose request is overdue, answering 408 where
    /// a request was underway. The table stays locked while the sockets are
    /// touched, so libmicrohttpd cannot close one of them meanwhile (it
    /// unregisters a connection before closing its socket).
    ///
    /// libmicrohttpd cannot queue a response before the request is complete,
    /// so the 408 is written to the socket directly. Nothing else writes
    /// there while the request is being received: the deadline's phase
    /// moves to answering before a response is queued, and never after a
    /// cut. (libmicrohttpd's own replies to malformed heads and
    /// `100 Continue` are the exception, a race a client has to provoke
    /// against itself.)
    func cutOverdueRequests(now: ContinuousClock.Instant) {
        let cuts: [Cut] = table.withLock { table in
            var cuts: [Cut] = []
            for connection in table.open.values {
                let overdue = connection.deadline.withLock { deadline -> (answer: Bool, requestID: String?)? in
                    guard deadline.cutIfOverdue(at: now, newRequestID: RequestID.generate) else { return nil }
                    return (deadline.requestUnderway, deadline.requestID)
                }
                guard let overdue else { continue }
                let socket = ConnectionSocket(descriptor: connection.socket)
                var failure: Int32?
                if overdue.answer {
                    failure = socket.sendWithoutWaiting(requestTimeoutResponse(requestID: overdue.requestID))
                }
                failure = socket.shutDown() ?? failure
                cuts.append(Cut(client: connection.peerDescription, requestID: overdue.requestID, failure: failure))
            }
            return cuts
        }
        for cut in cuts {
            metrics.requestTimeouts.increment()
            var metadata = [
                "client.address": cut.client ?? "unknown",
                "http.request_timeout_s": Self.seconds(requestTimeout),
            ]
            if let requestID = cut.requestID { metadata["request.id"] = requestID }
            // The client has usually stopped reading or gone: a failed write
            // or shutdown is worth a note, not an alarm.
            if let failure = cut.failure { metadata["errno"] = String(failure) }
            logger.info("http request not received within its deadline; connection closed", metadata: metadata)
        }
    }

    /// A complete `408` problem response that closes the connection.
    private func requestTimeoutResponse(requestID: String?) -> [UInt8] {
        let problem = HTTPError(
            .requestTimeout,
            detail: "The request was not received completely within \(Self.seconds(requestTimeout)) seconds."
        ).response(requestID: requestID)
        var head = "HTTP/1.1 408 \(problem.status.reasonPhrase)\r\n"
        for (name, value) in problem.headers { head += "\(name): \(value)\r\n" }
        if let requestID { head += "X-Request-Id: \(requestID)\r\n" }
        head += "Content-Length: \(problem.body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + problem.body
    }

    /// `30` or `1.5`: a duration in seconds for people to read.
    private static func seconds(_ duration: Duration) -> String {
        let seconds = duration / .seconds(1)
        return Int(exactly: seconds).map(String.init) ?? String(seconds)
    }
}
