internal import CMicroHTTPD
internal import CTidingsShims
import TidingsObservability
import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#endif

/// A running libmicrohttpd daemon: its threads run handlers inline, or with
/// `.suspending` do only socket I/O and hand handlers to the pipeline's
/// pool (see `HTTPServerThreading`).
///
/// `@unchecked Sendable`: the daemon handle is only touched under
/// `handles`' lock; `logHook` is written once before the
/// daemon starts and freed only in `deinit`, after the daemon has stopped
/// and can no longer call it.
final class MicroHTTPDDaemon: @unchecked Sendable {
    /// `@unchecked Sendable` because `OpaquePointer` is not; it is only ever
    /// read or replaced while holding the mutex that stores it.
    private struct Handles: @unchecked Sendable {
        var daemon: OpaquePointer?
    }

    let boundPort: Int
    private let handles: AdaptiveMutex<Handles>
    /// The C struct through which MHD reaches `log`.
    private let logHook: UnsafeMutablePointer<CTidingsShims_MHD_logger>
    private let log: MicroHTTPDLog
    /// Referenced unretained by the C callbacks, so the daemon keeps it alive.
    let pipeline: RequestPipeline

    deinit {
        stop()
        logHook.deallocate()
    }

    /// Binds and starts the daemon; throws with MHD's own explanation when
    /// that fails.
    init(pipeline: RequestPipeline, logger: Logger) throws(HTTPServerError) {
        let configuration = pipeline.configuration
        let address = try ListenAddress(host: configuration.host, port: configuration.port)
        let log = MicroHTTPDLog(logger: logger)
        let logHook = UnsafeMutablePointer<CTidingsShims_MHD_logger>.allocate(capacity: 1)
        logHook.initialize(
            to: CTidingsShims_MHD_logger(
                callback: MicroHTTPDCallbacks.log,
                cls: Unmanaged.passUnretained(log).toOpaque()
            ))
        let pipelinePointer = Unmanaged.passUnretained(pipeline).toOpaque()

        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | Self.threadingFlags(configuration.threading)
            | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }

        let started = try address.withSocketAddress { socketAddress throws(HTTPServerError) in
            // The logger comes first so that libmicrohttpd reports problems
            // with the later options through it.
            let options: [MHD_OptionItem] =
                [CTidingsShims_MHD_option_logger(logHook)]
                + Self.threadingOptions(configuration.threading) + [
                    MHD_OptionItem(
                        option: .CONNECTION_LIMIT, value: ClientConnections.libraryConnectionLimit(configuration), ptr_value: nil),
                    MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: Self.idleTimeoutSeconds(configuration), ptr_value: nil),
                    MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: Self.connectionMemoryLimit(configuration), ptr_value: nil),
                    CTidingsShims_MHD_option_uri_log(MicroHTTPDCallbacks.requestLine, pipelinePointer),
                    CTidingsShims_MHD_option_notify_completed(MicroHTTPDCallbacks.completed, pipelinePointer),
                    CTidingsShims_MHD_option_notify_connection(MicroHTTPDCallbacks.connectionChanged, pipelinePointer),
                    CTidingsShims_MHD_option_sock_addr(socketAddress),
                    CTidingsShims_MHD_option_unescape_keeping_nul(),
                    MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
                ]
            return options.withUnsafeBufferPointer { options in
                CTidingsShims_MHD_start_daemon(
                    flags, 0,
                    MicroHTTPDCallbacks.acceptPolicy, pipelinePointer,
                    MicroHTTPDCallbacks.access, pipelinePointer,
                    options.baseAddress
                )
            }
        }
        guard let daemon = started else {
            logHook.deallocate()
            let reason = log.latestMessage ?? "libmicrohttpd gave no reason"
            throw HTTPServerError(
                .startFailed,
                detail: "could not listen on \(configuration.host):\(configuration.port): \(reason)"
            )
        }
        boundPort = Int(CTidingsShims_MHD_bound_port(daemon))
        handles = AdaptiveMutex(Handles(daemon: daemon))
        self.logHook = logHook
        self.log = log
        self.pipeline = pipeline
        pipeline.clients.startWatchdog()
    }

    var openConnections: Int {
        handles.withLock { handles in
            handles.daemon.map { Int(CTidingsShims_MHD_current_connections($0)) } ?? 0
        }
    }

    /// Closes every connection and joins the worker threads; requests still
    /// running inline finish their handler first. No connection may be
    /// suspended (see `RequestPipeline.abandonHandlers`). Idempotent.
    func stop() {
        let taken = handles.withLock { handles in
            defer { handles = Handles() }
            return handles
        }
        guard let daemon = taken.daemon else { return }
        MHD_stop_daemon(daemon)
        pipeline.clients.stopWatchdog()
    }

    /// libmicrohttpd 0.9.75 refuses epoll with a thread per connection;
    /// each connection thread then polls its one socket with poll(2).
    /// Suspending and resuming connections works only with internal polling.
    private static func threadingFlags(_ threading: HTTPServerThreading) -> UInt32 {
        switch threading {
        case .threadPerConnection: MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
        case .pool: MHD_USE_EPOLL.rawValue
        case .suspending: MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        }
    }

    private static func threadingOptions(_ threading: HTTPServerThreading) -> [MHD_OptionItem] {
        switch threading {
        case .pool(let threads) where threads > 1, .suspending(let threads, _) where threads > 1:
            [MHD_OptionItem(option: .THREAD_POOL_SIZE, value: threads, ptr_value: nil)]
        case .pool, .suspending, .threadPerConnection:
            // A pool of one is the polling thread itself (MHD warns about
            // THREAD_POOL_SIZE 1). Connection threads keep glibc's default
            // stack size: address space, of which only touched pages count.
            []
        }
    }

    private static func idleTimeoutSeconds(_ configuration: HTTPServerConfiguration) -> Int {
        Int(clamping: max(1, configuration.connectionIdleTimeout.roundedUpSeconds))
    }

    /// MHD keeps a connection's request line, header fields, their index
    /// and the response head in one pool of this size, so the pool is what
    /// enforces `maxHeaderBytes` for the whole head. The headroom covers the
    /// index and the response head, so heads within the limits are judged
    /// here (answering problem+json); a head too large for the pool is
    /// answered by MHD itself with a plain 414 or 431. MHD zeroes the pool
    /// between keep-alive requests, so it is kept no larger than needed.
    private static func connectionMemoryLimit(_ configuration: HTTPServerConfiguration) -> Int {
        let headroom = 8 * 1024
        return configuration.maxHeaderBytes + headroom
    }
}
