import Glibc
internal import CCurl
internal import CTidingsShims
import Synchronization
import TidingsObservability
import TidingsSynchronization

/// Runs every transfer of one client on a single thread that owns the libcurl
/// multi handle and all easy handles. Other threads only touch `inbox`
/// (under its lock) and wake the thread through `readiness`.
///
/// The thread drives libcurl by events (curl_multi_socket_action): libcurl
/// says which sockets to watch and when its next timeout is, epoll says
/// which sockets are ready, and only the transfers on those sockets run.
/// curl_multi_perform ran every transfer on every turn, and each asked the
/// kernel whether its socket was ready: with 256 transfers in flight that
/// was 256 polls per turn (decision 0034).
///
/// `@unchecked Sendable`: `multi`, `transfers` and the timer are used by the
/// driver thread alone (after `init` hands them over through
/// pthread_create), and `readiness` is woken only under the inbox lock
/// while `isShutDown` is false, i.e. before the driver thread closes it.
final class CurlMultiDriver: @unchecked Sendable {
    private struct Submission: Sendable {
        let id: UInt64
        let request: HTTPClientRequest
        let completion: CurlEasyTransfer.Completion
    }

    private struct Inbox {
        var submissions: [Submission] = []
        var cancellations: [UInt64] = []
        var isShutDown = false
        /// A wakeup is on its way; further ones until the next drain are redundant.
        var wakeupPending = false
        var thread: JoinableThread?
    }

    private let inbox = AdaptiveMutex(Inbox())
    private let nextID = Atomic<UInt64>(1)
    private let multi: UnsafeMutableRawPointer
    private let readiness: SocketReadiness
    /// When libcurl wants curl_multi_socket_action called for its timeouts
    /// (connects, transfer deadlines, the first step of a new transfer).
    private var timerDeadline: ContinuousClock.Instant?
    private var transfers: [UInt64: CurlEasyTransfer] = [:]
    /// Easy handles of finished transfers, reset, for the next ones: a new
    /// handle costs a large allocation and its buffers on every request.
    /// Connections and the DNS cache live in the multi handle either way.
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let idleHandleLimit: Int
    private let configuration: HTTPClientConfiguration
    private let logger: Logger

    init(configuration: HTTPClientConfiguration, logger: Logger) throws(HTTPClientError) {
        try CurlGlobal.ensureInitialized()
        guard let multi = curl_multi_init() else {
            throw HTTPClientError(code: .transport, message: "libcurl could not create a multi handle")
        }
        let readiness: SocketReadiness
        do {
            readiness = try SocketReadiness()
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
        self.multi = multi
        self.readiness = readiness
        self.idleHandleLimit = max(configuration.maxTotalConnections, 64)
        self.configuration = configuration
        self.logger = logger
        do {
            try Self.configure(multi, configuration)
            // libcurl calls back with this driver while the thread runs,
            // and the thread holds a strong reference to it.
            try Self.setCallbacks(multi, context: Unmanaged.passUnretained(self).toOpaque())
        } catch {
            curl_multi_cleanup(multi)
            readiness.close()
            throw error
        }
        do {
            // The driver blocks in epoll_wait: a thread of its own.
            let thread = try JoinableThread(name: "tidings.curl") { [self] in run() }
            inbox.withLock { $0.thread = thread }
        } catch {
            curl_multi_cleanup(multi)
            readiness.close()
            throw HTTPClientError(code: .transport, message: "could not start the HTTP client thread (\(error))")
        }
    }

    private static func setCallbacks(_ multi: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer) throws(HTTPClientError) {
        for code in [
            CTidingsShims_curl_multi_setopt_socket_function(multi, socketCallback),
            CTidingsShims_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context),
            CTidingsShims_curl_multi_setopt_timer_function(multi, timerCallback),
            CTidingsShims_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context),
        ] where code != CURLM_OK {
            throw HTTPClientError(code: .transport, message: "could not configure libcurl's multi handle: \(text(code))")
        }
    }

    /// CURLMOPT_SOCKETFUNCTION: what libcurl wants to hear about `socket`.
    private static let socketCallback: curl_socket_callback = { _, socket, what, context, _ in
        guard let context else { return 0 }
        let driver = Unmanaged<CurlMultiDriver>.fromOpaque(context).takeUnretainedValue()
        return driver.watch(socket, for: what)
    }

    /// CURLMOPT_TIMERFUNCTION: when libcurl next needs a call for its
    /// timeouts; -1 cancels, 0 means at once (but not from inside the
    /// callback, which libcurl forbids).
    private static let timerCallback: curl_multi_timer_callback = { _, milliseconds, context in
        guard let context else { return 0 }
        let driver = Unmanaged<CurlMultiDriver>.fromOpaque(context).takeUnretainedValue()
        driver.timerDeadline = milliseconds < 0 ? nil : ContinuousClock.now.advanced(by: .milliseconds(milliseconds))
        return 0
    }

    private static func configure(_ multi: UnsafeMutableRawPointer, _ configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        func set(_ option: CURLMoption, _ value: Int) throws(HTTPClientError) {
            let code = CTidingsShims_curl_multi_setopt_long(multi, option, value)
            guard code == CURLM_OK else {
                throw HTTPClientError(code: .transport, message: "could not configure libcurl's multi handle: \(text(code))")
            }
        }
        // The keep-alive cache holds as many idle connections as may be open at once.
        try set(CURLMOPT_MAXCONNECTS, max(configuration.maxTotalConnections, 1))
        try set(CURLMOPT_MAX_TOTAL_CONNECTIONS, max(configuration.maxTotalConnections, 0))
        try set(CURLMOPT_MAX_HOST_CONNECTIONS, max(configuration.maxConnectionsPerHost, 0))
        if let multiplexing = configuration.http2Multiplexing {
            try set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
            try set(CURLMOPT_MAX_CONCURRENT_STREAMS, max(multiplexing.maxConcurrentStreams, 1))
        }
    }

    func makeTransferID() -> UInt64 {
        nextID.add(1, ordering: .relaxed).oldValue
    }

    /// Queues a transfer; after shutdown the completion fails at once.
    func submit(id: UInt64, request: HTTPClientRequest, completion: @escaping CurlEasyTransfer.Completion) {
        let accepted = inbox.withLock { inbox in
            guard !inbox.isShutDown else { return false }
            inbox.submissions.append(Submission(id: id, request: request, completion: completion))
            wake(&inbox)
            return true
        }
        if !accepted { completion(.failure(.shutdown)) }
    }

    /// Aborts a submitted transfer with `.cancelled` unless it already finished.
    func cancel(id: UInt64) {
        inbox.withLock { inbox in
            guard !inbox.isShutDown else { return }
            inbox.cancellations.append(id)
            wake(&inbox)
        }
    }

    /// Fails every unfinished transfer with `.shutdown` and ends the thread,
    /// waiting for it unless called from it. Later calls do nothing.
    func shutdown() {
        let thread = inbox.withLock { inbox -> JoinableThread? in
            guard !inbox.isShutDown else { return nil }
            inbox.isShutDown = true
            readiness.wake()
            defer { inbox.thread = nil }
            return inbox.thread
        }
        thread?.join()
    }

    private func wake(_ inbox: inout Inbox) {
        guard !inbox.wakeupPending else { return }
        inbox.wakeupPending = true
        readiness.wake()
    }

    // MARK: Driver thread

    private func run() {
        logger.debug("HTTP client driver started")
        while true {
            let (submissions, cancellations, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.submissions.removeAll()
                    inbox.cancellations.removeAll()
                    inbox.wakeupPending = false
                }
                return (inbox.submissions, inbox.cancellations, inbox.isShutDown)
            }
            if stopping {
                stop(failing: submissions)
                logger.debug("HTTP client driver stopped")
                return
            }
            submissions.forEach(start)
            cancellations.forEach(abort)
            switch readiness.wait(timeoutMilliseconds: timerWait()) {
            case .success(let events):
                for event in events { act(on: event) }
            case .failure(let error):
                // Not expected with a valid set; the timer still runs
                // libcurl's timeouts, so no transfer hangs.
                logger.error("epoll_wait failed", metadata: ["errno": "\(error.errno)"])
            }
            if let deadline = timerDeadline, deadline <= .now {
                timerDeadline = nil
                var running: Int32 = 0
                report(curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running), from: "curl_multi_socket_action")
            }
            collectFinished()
        }
    }

    /// Milliseconds until libcurl's timer, rounded up; -1 without one. A
    /// new submission or cancellation wakes the wait anyway.
    private func timerWait() -> Int32 {
        guard let deadline = timerDeadline else { return -1 }
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    private func act(on event: SocketReadiness.Event) {
        var mask: Int32 = 0
        if event.readable { mask |= CURL_CSELECT_IN }
        if event.writable { mask |= CURL_CSELECT_OUT }
        if event.failed { mask |= CURL_CSELECT_ERR }
        var running: Int32 = 0
        report(curl_multi_socket_action(multi, event.socket, mask, &running), from: "curl_multi_socket_action")
    }

    /// The socket callback's work: watch or unwatch as libcurl asks.
    private func watch(_ socket: curl_socket_t, for what: Int32) -> Int32 {
        if what == CURL_POLL_REMOVE {
            readiness.unwatch(socket)
            return 0
        }
        let reading = what == CURL_POLL_IN || what == CURL_POLL_INOUT
        let writing = what == CURL_POLL_OUT || what == CURL_POLL_INOUT
        if let error = readiness.watch(socket, reading: reading, writing: writing) {
            // Answering -1 would make libcurl fail every transfer of this
            // multi handle, all tenants' alike. Unwatched, the transfers on
            // this socket end at their own timeout instead.
            logger.error("could not watch a libcurl socket", metadata: ["errno": "\(error)"])
        }
        return 0
    }

    private func start(_ submission: Submission) {
        guard let handle = idleHandles.popLast() ?? curl_easy_init() else {
            submission.completion(.failure(HTTPClientError(code: .transport, message: "libcurl could not create a transfer")))
            return
        }
        let transfer: CurlEasyTransfer
        do {
            transfer = try CurlEasyTransfer(
                id: submission.id,
                handle: handle,
                request: submission.request,
                configuration: configuration,
                completion: submission.completion
            )
        } catch {
            recycle(handle)
            submission.completion(.failure(error))
            return
        }
        let code = curl_multi_add_handle(multi, transfer.handle)
        guard code == CURLM_OK else {
            recycle(handle)
            transfer.fail(HTTPClientError(code: .transport, message: "could not start the transfer: \(Self.text(code))"))
            return
        }
        transfers[submission.id] = transfer
    }

    private func abort(_ id: UInt64) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        curl_multi_remove_handle(multi, transfer.handle)
        recycle(transfer.handle)
        transfer.fail(.cancelled)
    }

    /// Takes back a handle that is out of the multi handle and whose
    /// transfer read all it needs from it: reset (options and per-request
    /// state go; connections stay with the multi handle) and kept, or freed
    /// beyond the limit.
    private func recycle(_ handle: UnsafeMutableRawPointer) {
        guard idleHandles.count < idleHandleLimit else {
            curl_easy_cleanup(handle)
            return
        }
        curl_easy_reset(handle)
        idleHandles.append(handle)
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            // The message does not survive curl_multi_remove_handle: copy first.
            let result = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            guard CTidingsShims_curl_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &context) == CURLE_OK,
                  let context
            else { continue }
            let id = Unmanaged<CurlEasyTransfer>.fromOpaque(context).takeUnretainedValue().id
            guard let transfer = transfers.removeValue(forKey: id) else { continue }
            curl_multi_remove_handle(multi, handle)
            transfer.complete(with: result)
            recycle(handle)
        }
    }

    private func stop(failing submissions: [Submission]) {
        for submission in submissions {
            submission.completion(.failure(.shutdown))
        }
        for transfer in transfers.values {
            curl_multi_remove_handle(multi, transfer.handle)
            curl_easy_cleanup(transfer.handle)
            transfer.fail(.shutdown)
        }
        transfers.removeAll()
        idleHandles.forEach(curl_easy_cleanup)
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        readiness.close()
    }

    private func report(_ code: CURLMcode, from function: String) {
        guard code != CURLM_OK else { return }
        logger.error("libcurl multi call failed", metadata: ["curl.function": function, "curl.error": Self.text(code)])
    }

    private static func text(_ code: CURLMcode) -> String {
        String(cString: curl_multi_strerror(code))
    }
}
