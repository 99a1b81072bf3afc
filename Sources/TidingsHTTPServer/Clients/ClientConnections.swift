import TidingsIP
import TidingsObservability
import TidingsSynchronization

/// The open connections, counted per client address; the connection limit,
/// at which a newcomer takes the place of an idle or slow connection of the
/// client holding the most; and the watchdog that closes connections whose
/// request is not in, or whose response not taken, by its deadline.
///
/// libmicrohttpd has no deadline for a whole request or response (its
/// connection timeout is an idle timeout, reset by every byte), its own
/// per-IP limit cannot exempt a proxy, and at its connection limit it
/// stops accepting, so a few hundred addresses holding slow connections
/// would keep everyone else out (docs/decisions/0045). A connection over
/// its client's cap is refused by the accept policy before it costs a
/// thread; the count is kept from libmicrohttpd's start and close
/// notifications, which always come in pairs, unlike the accept policy's
/// verdict.
final class ClientConnections: Sendable {
    private struct Table {
        var open: [ObjectIdentifier: ClientConnection] = [:]
        /// Open connections per `ClientConnection.shareKey`.
        var perClient: [IPAddress: Int] = [:]
        /// How many clients hold each count of connections, so a newcomer
        /// that nobody holds two more than is refused without a scan (the
        /// common case under attack, when every address holds its share).
        var holders: [Int: Int] = [:]

        mutating func add(_ connection: ClientConnection) {
            open[ObjectIdentifier(connection)] = connection
            guard let key = connection.shareKey else { return }
            let count = perClient[key, default: 0]
            perClient[key] = count + 1
            moveHolder(from: count, to: count + 1)
        }

        /// False when it was not registered (any more): shed already.
        mutating func remove(_ connection: ClientConnection) -> Bool {
            guard open.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return false }
            if let key = connection.shareKey, let count = perClient[key] {
                perClient[key] = count > 1 ? count - 1 : nil
                moveHolder(from: count, to: count - 1)
            }
            return true
        }

        private mutating func moveHolder(from old: Int, to new: Int) {
            if old > 0 {
                let remaining = holders[old, default: 0] - 1
                holders[old] = remaining > 0 ? remaining : nil
            }
            if new > 0 { holders[new, default: 0] += 1 }
        }

        /// The connection to shed for a newcomer whose client holds `held`:
        /// one of a client holding at least two more, so shares never swap
        /// places; of the client holding the most, its most readily shed
        /// connection (`ConnectionDeadline.sheddingRank`), the one stuck
        /// longest among equals. Marked shed under its own lock, so it
        /// cannot start anything meanwhile; nil when none may go.
        func markVictim(newcomerHolds held: Int) -> ClientConnection? {
            guard let most = holders.keys.max(), most >= held + 2 else { return nil }
            typealias Candidate = (connection: ClientConnection, holds: Int, rank: Int, since: ContinuousClock.Instant)
            var best: Candidate?
            for connection in open.values {
                guard let key = connection.shareKey, let holds = perClient[key], holds >= held + 2 else { continue }
                if let best, holds < best.holds { continue }
                guard
                    let (rank, since) = connection.deadline.withLock({ deadline in
                        deadline.sheddingRank.map { ($0, deadline.phaseBegan) }
                    })
                else { continue }
                if let best, holds == best.holds, (rank, since) >= (best.rank, best.since) { continue }
                best = (connection, holds, rank, since)
            }
            // A rare race (its request completed meanwhile): nothing is shed.
            guard let victim = best?.connection, victim.deadline.withLock({ $0.shed() }) else { return nil }
            return victim
        }
    }

    /// What `opened` decided about a new connection, acted on outside the lock.
    private enum Admission {
        case admitted(shed: ClientConnection?, shedFailure: Int32?)
        case overCap
        case atLimit
    }

    /// A connection the watchdog closed: logged after the lock is released.
    private struct Cut {
        let kind: ConnectionDeadline.Cut
        let client: String?
        let requestID: String?
        let failure: Int32?
    }

    let connectionLimit: Int
    let requestTimeout: Duration
    let idleTimeout: Duration
    let responseTimeout: Duration
    let connectionsPerClient: Int
    let trustedProxies: TrustedProxies
    private let logger: Logger
    private let metrics: HTTPServerMetrics
    private let table = AdaptiveMutex(Table())
    /// Looks for overdue connections on a thread of its own (a cut waits
    /// for the table, which libmicrohttpd's threads hold meanwhile), at
    /// deadlines the process's `DeadlineTimer` keeps.
    private let watchdog = AdaptiveMutex<DeadlineWorker?>(nil)

    init(configuration: HTTPServerConfiguration, logger: Logger, metrics: HTTPServerMetrics) {
        connectionLimit = configuration.connectionLimit
        requestTimeout = configuration.requestTimeout
        idleTimeout = configuration.connectionIdleTimeout
        responseTimeout = configuration.responseTimeout
        connectionsPerClient = configuration.connectionsPerClient
        trustedProxies = configuration.trustedProxies
        self.logger = logger
        self.metrics = metrics
    }

    /// libmicrohttpd's own limit: above ours, so that a connection arriving
    /// at our limit is accepted and reaches `opened`, which sheds one for
    /// it (libmicrohttpd would leave it in the listen backlog, or close it
    /// unseen). The margin holds the shed connections libmicrohttpd has not
    /// closed yet (a few milliseconds each) and refused ones.
    static func libraryConnectionLimit(_ configuration: HTTPServerConfiguration) -> Int {
        configuration.connectionLimit + max(16, configuration.connectionLimit / 8)
    }

    // MARK: Per-client cap and the connection limit

    /// The accept policy's quick check of the per-client cap, before
    /// libmicrohttpd spends a thread or a memory pool on the connection.
    /// `opened` decides for certain.
    func admits(_ peer: IPAddress?) -> Bool {
        guard let peer, !trustedProxies.contains(peer) else { return true }
        let key = peer.clientKey
        let admitted = table.withLock { $0.perClient[key, default: 0] < connectionsPerClient }
        if !admitted { refused(peer, atLimit: false) }
        return admitted
    }

    /// Registers a connection libmicrohttpd has just accepted. At the
    /// connection limit, a connection of the client holding the most is
    /// shed for it (`Table.markVictim`) and closed unanswered. When its own
    /// client already holds `connectionsPerClient` connections (several
    /// threads of a pool can pass `admits` at once), or nothing may be shed
    /// for it, the new connection is shut down unanswered instead and nil
    /// returned: libmicrohttpd's next read then ends it.
    func opened(socket: Int32, peer: IPAddress?) -> ClientConnection? {
        let connection = ClientConnection(
            socket: socket,
            peer: peer,
            isTrustedProxy: peer.map(trustedProxies.contains) ?? false,
            deadline: ConnectionDeadline(
                openedAt: .now,
                requestTimeout: requestTimeout,
                idleTimeout: idleTimeout,
                responseTimeout: responseTimeout
            )
        )
        let admission: Admission = table.withLock { table in
            let held = connection.shareKey.map { table.perClient[$0, default: 0] } ?? 0
            if connection.capKey != nil, held >= connectionsPerClient { return .overCap }
            var shed: ClientConnection?
            var shedFailure: Int32?
            if table.open.count >= connectionLimit {
                guard let victim = table.markVictim(newcomerHolds: held) else { return .atLimit }
                // Still registered, so its socket is open (see `ClientConnection`).
                shedFailure = ConnectionSocket(descriptor: victim.socket).shutDown()
                _ = table.remove(victim)
                shed = victim
            }
            table.add(connection)
            return .admitted(shed: shed, shedFailure: shedFailure)
        }
        switch admission {
        case .admitted(let shed, let failure):
            if let shed { wasShed(shed, for: connection, failure: failure) }
            return connection
        case .overCap:
            refuse(socket: socket, peer: peer, atLimit: false)
            return nil
        case .atLimit:
            refuse(socket: socket, peer: peer, atLimit: true)
            return nil
        }
    }

    private func refuse(socket: Int32, peer: IPAddress?, atLimit: Bool) {
        refused(peer, atLimit: atLimit)
        if let failure = ConnectionSocket(descriptor: socket).shutDown() {
            logger.warning("could not shut down a refused http connection", metadata: ["errno": String(failure)])
        }
    }

    /// libmicrohttpd closed it; a shed connection was let go already.
    func closed(_ connection: ClientConnection) {
        _ = table.withLock { $0.remove(connection) }
    }

    private func wasShed(_ victim: ClientConnection, for newcomer: ClientConnection, failure: Int32?) {
        metrics.connectionsShed.increment()
        // Shedding happens under attack, a line each would flood the log.
        guard logger.isEnabled(.debug) else { return }
        var metadata = [
            "client.address": victim.peerDescription ?? "unknown",
            "http.newcomer.address": newcomer.peerDescription ?? "unknown",
            "http.connection_limit": String(connectionLimit),
        ]
        if let failure { metadata["errno"] = String(failure) }
        logger.debug("http connection shed at the connection limit for a client holding fewer", metadata: metadata)
    }

    private func refused(_ peer: IPAddress?, atLimit: Bool) {
        metrics.connectionsRefused.increment()
        // A client hammering the cap should not cost an address to text each time.
        guard logger.isEnabled(.debug) else { return }
        let message =
            atLimit
            ? "http connection refused: the server is at its connection limit and no client holds more connections than this one"
            : "http connection refused: its client holds the most connections allowed"
        logger.debug(
            message,
            metadata: [
                "client.address": peer?.description ?? "unknown",
                "http.connections_per_client": String(connectionsPerClient),
                "http.connection_limit": String(connectionLimit),
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

    /// Starts checking deadlines a few times per request or response
    /// timeout, whichever is shorter (at most every second), so a
    /// connection is cut within a tenth of its timeout or a second after
    /// it, whichever is less.
    func startWatchdog() {
        let period = min(.seconds(1), max(.milliseconds(50), min(requestTimeout, responseTimeout) / 10))
        let worker = AdaptiveMutex<DeadlineWorker?>(nil)
        let watch = DeadlineWorker(name: "tidings.http.deadlines") { [weak self] in
            let now = ContinuousClock.now
            self?.cutOverdueConnections(now: now)
            worker.withLock { $0 }?.schedule(at: now + period)
        }
        worker.withLock { $0 = watch }
        watchdog.withLock { $0 = watch }
        watch.schedule(at: .now)
    }

    /// Stops the looks, after one under way.
    func stopWatchdog() {
        watchdog.withLock { $0.take() }?.stop()
    }

    /// Closes every connection whose request or response is overdue,
    /// answering 408 where a request was underway. The table stays locked
    /// while the sockets are touched, so libmicrohttpd cannot close one of
    /// them meanwhile (it unregisters a connection before closing its
    /// socket).
    ///
    /// libmicrohttpd cannot queue a response before the request is complete,
    /// so the 408 is written to the socket directly. Nothing else writes
    /// there while the request is being received: the deadline's phase
    /// moves to answering before a response is queued, and never after a
    /// cut. (libmicrohttpd's own replies to malformed heads and
    /// `100 Continue` are the exception, a race a client has to provoke
    /// against itself.) An overdue response is cut without a word: part of
    /// it went out already.
    func cutOverdueConnections(now: ContinuousClock.Instant) {
        let cuts: [Cut] = table.withLock { table in
            var cuts: [Cut] = []
            for connection in table.open.values {
                let overdue = connection.deadline.withLock {
                    deadline -> (kind: ConnectionDeadline.Cut, answer: Bool, requestID: String?)? in
                    guard let kind = deadline.cutIfOverdue(at: now, newRequestID: RequestID.generate) else { return nil }
                    return (kind, kind == .request && deadline.requestUnderway, deadline.requestID)
                }
                guard let overdue else { continue }
                let socket = ConnectionSocket(descriptor: connection.socket)
                var failure: Int32?
                if overdue.answer {
                    failure = socket.sendWithoutWaiting(requestTimeoutResponse(requestID: overdue.requestID))
                }
                failure = socket.shutDown() ?? failure
                cuts.append(Cut(kind: overdue.kind, client: connection.peerDescription, requestID: overdue.requestID, failure: failure))
            }
            return cuts
        }
        for cut in cuts {
            var metadata = ["client.address": cut.client ?? "unknown"]
            if let requestID = cut.requestID { metadata["request.id"] = requestID }
            // The client has usually stopped reading or gone: a failed write
            // or shutdown is worth a note, not an alarm.
            if let failure = cut.failure { metadata["errno"] = String(failure) }
            if cut.kind == .response {
                metrics.responseTimeouts.increment()
                metadata["http.response_timeout_s"] = Self.seconds(responseTimeout)
                logger.info("http response not taken by the client within its deadline; connection closed", metadata: metadata)
            } else {
                metrics.requestTimeouts.increment()
                metadata["http.request_timeout_s"] = Self.seconds(requestTimeout)
                logger.info("http request not received within its deadline; connection closed", metadata: metadata)
            }
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
