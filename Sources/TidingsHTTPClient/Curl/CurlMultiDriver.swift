internal import CCurl
internal import CTidingsShims
import Synchronization
import TidingsObservability
import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs every transfer of one client on a single thread that owns the libcurl
/// multi handle and all easy handles. Other threads only touch `inbox`
/// (under its lock) and call curl_multi_wakeup, which libcurl documents as
/// callable from any thread.
///
/// `@unchecked Sendable`: `multi` and `transfers` are used by the driver
/// thread alone (after `init` hands them over through pthread_create), and
/// `multi` is woken only under the inbox lock while `isShutDown` is false,
/// i.e. before the driver thread can have freed it.
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
        self.multi = multi
        self.idleHandleLimit = max(configuration.maxTotalConnections, 64)
        self.configuration = configuration
        self.logger = logger
        do {
            try Self.configure(multi, configuration)
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
        do {
            // The driver blocks in curl_multi_poll: a thread of its own.
            let thread = try JoinableThread(name: "tidings.curl") { [self] in run() }
            inbox.withLock { $0.thread = thread }
        } catch {
            curl_multi_cleanup(multi)
            throw HTTPClientError(code: .transport, message: "could not start the HTTP client thread (\(error))")
        }
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
    func stop() {
        let thread = inbox.withLock { inbox -> JoinableThread? in
            guard !inbox.isShutDown else { return nil }
            inbox.isShutDown = true
            curl_multi_wakeup(multi)
            defer { inbox.thread = nil }
            return inbox.thread
        }
        thread?.join()
    }

    private func wake(_ inbox: inout Inbox) {
        guard !inbox.wakeupPending else { return }
        inbox.wakeupPending = true
        curl_multi_wakeup(multi)
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
            performAndCollect()
            var ready: Int32 = 0
            // libcurl shortens the wait to its next internal timeout.
            report(curl_multi_poll(multi, nil, 0, 1000, &ready), from: "curl_multi_poll")
        }
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

    private func performAndCollect() {
        var running: Int32 = 0
        report(curl_multi_perform(multi, &running), from: "curl_multi_perform")
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
    }

    private func report(_ code: CURLMcode, from function: String) {
        guard code != CURLM_OK else { return }
        logger.error("libcurl multi call failed", metadata: ["curl.function": function, "curl.error": Self.text(code)])
    }

    private static func text(_ code: CURLMcode) -> String {
        String(cString: curl_multi_strerror(code))
    }
}
