package import TidingsObservability
import TidingsSynchronization

/// The HTTP server: libmicrohttpd, whose threads run the responder
/// synchronously (by default one thread per connection), or hand it to a
/// pool of handler threads (`.suspending`, which also serves streams); see
/// `HTTPServerThreading`. See `HTTPServerConfiguration` for its limits.
package final class HTTPServer: Service {
    private enum State {
        case idle
        case running(MicroHTTPDDaemon)
        case stopped
    }

    private let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let logger: Logger
    private let metrics: HTTPServerMetrics
    private let state = AdaptiveMutex(State.idle)

    package init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger, metrics: MetricsRegistry) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.metrics = HTTPServerMetrics(registry: metrics)
    }

    deinit {
        stop(deadline: .now + configuration.shutdownGracePeriod)
    }

    /// Binds and starts serving. Throws `HTTPServerError` for an invalid
    /// configuration, an unusable host, a port that cannot be bound, a
    /// handler thread the system refuses, or a second start.
    package func start() throws(HTTPServerError) {
        try configuration.validate()
        let daemon: MicroHTTPDDaemon = try state.withLock { state throws(HTTPServerError) in
            guard case .idle = state else {
                throw HTTPServerError(.alreadyStarted, detail: "an HTTPServer can be started only once")
            }
            let handlers = try configuration.threading.handlerThreads.map { size throws(HTTPServerError) in
                do {
                    return try ThreadPool(name: "tidings.http", size: size)
                } catch {
                    throw HTTPServerError(.startFailed, detail: "could not start the HTTP handler threads: \(error)")
                }
            }
            let pipeline = RequestPipeline(
                configuration: configuration,
                responder: responder,
                logger: logger,
                metrics: metrics,
                handlers: handlers
            )
            do throws(HTTPServerError) {
                let daemon = try MicroHTTPDDaemon(pipeline: pipeline, logger: logger)
                state = .running(daemon)
                return daemon
            } catch {
                handlers?.stop()
                throw error
            }
        }
        metrics.connectionsOpen.observe { [weak daemon] in
            Double(daemon?.openConnections ?? 0)
        }
        metrics.streamsOpen.observe { [weak daemon] in
            Double(daemon?.pipeline.openStreams ?? 0)
        }
        logger.notice(
            "http server listening",
            metadata: [
                "http.host": configuration.host,
                "http.port": String(daemon.boundPort),
                "http.threading": configuration.threading.description,
                "http.trusted_proxies": configuration.trustedProxies.description,
            ])
    }

    /// The port actually bound (useful with port 0); 0 when not running.
    package var boundPort: Int {
        state.withLock { state in
            if case .running(let daemon) = state { daemon.boundPort } else { 0 }
        }
    }

    /// Stops accepting connections, ends open streams cleanly, lets
    /// requests in flight finish for up to the grace period and no later
    /// than `deadline` (closing keep-alive connections as they answer),
    /// then closes everything. Idempotent; a concurrent second call returns
    /// at once. Must not be called from a handler, since it joins the
    /// worker threads.
    package func stop(deadline: ContinuousClock.Instant) {
        let running: MicroHTTPDDaemon? = state.withLock { state in
            defer { state = .stopped }
            if case .running(let daemon) = state { return daemon }
            return nil
        }
        guard let daemon = running else { return }
        let pipeline = daemon.pipeline
        // Draining makes the accept policy close new connections at once.
        // (MHD_quiesce_daemon would remove the listen socket instead, but it
        // races with worker threads that reach the connection limit and
        // makes libmicrohttpd 0.9.75 abort.)
        pipeline.beginDraining()
        // Streams count as in flight until they end: what was sent goes
        // out, then a clean end, so clients reconnect to another replica.
        pipeline.endStreams()
        let gracePeriod = min(configuration.shutdownGracePeriod, max(ContinuousClock.now.duration(to: deadline), .zero))
        if !pipeline.waitForInFlightRequests(timeout: gracePeriod) {
            logger.warning(
                "http requests still running after the grace period; closing their connections",
                metadata: [
                    "grace_period_s": String(gracePeriod.components.seconds)
                ])
        }
        pipeline.abandonHandlers()
        metrics.connectionsOpen.removeObservation()
        metrics.streamsOpen.removeObservation()
        daemon.stop()
        // Handlers still running finish here; their answers are dropped.
        pipeline.handlers?.stop()
        logger.notice("http server stopped")
    }
}
