internal import CCurl
internal import CTidingsShims
import TidingsObservability
import TidingsSynchronization

// epoll: Linux only, as the server is.
import Glibc

/// What `CurlMultiDriver`'s thread waits on, through libcurl's socket
/// interface: an epoll set of the sockets libcurl asks it to watch
/// (CURLMOPT_SOCKETFUNCTION), libcurl's one timer (CURLMOPT_TIMERFUNCTION)
/// and an eventfd that other threads write to wake it. A turn of the loop
/// costs the sockets that are ready; curl_multi_poll handed every
/// transfer's socket to poll(2) on every turn, which with hundreds of
/// transfers in flight was a fifth of the poller's CPU
/// (`bench/poller.sh` BENCH_MIX=1).
///
/// Used by the driver thread alone, except `wake()`, which any thread may
/// call until `close()` (the driver wakes only under its inbox lock while
/// not shut down, and closes after shutting down).
final class CurlSocketEvents {
    private let epoll: Int32
    private let wakeup: Int32
    private let logger: Logger
    private var multi: UnsafeMutableRawPointer?
    /// When libcurl's timer expires; nil while it has none.
    private var deadline: ContinuousClock.Instant?
    private static let capacity = 256
    private let readyFDs = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
    private let readiness = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)

    init(logger: Logger) throws(HTTPClientError) {
        self.logger = logger
        epoll = CTidingsShims_epoll_create()
        wakeup = CTidingsShims_eventfd()
        guard epoll >= 0, wakeup >= 0, CTidingsShims_epoll_watch(epoll, wakeup, 1, 0, 0) == 0 else {
            let reason = String(cString: strerror(errno))
            if epoll >= 0 { Glibc.close(epoll) }
            if wakeup >= 0 { Glibc.close(wakeup) }
            readyFDs.deallocate()
            readiness.deallocate()
            throw HTTPClientError(code: .transport, message: "could not set up the HTTP client's event loop: \(reason)")
        }
    }

    /// Makes libcurl report its sockets and timer here.
    func install(on multi: UnsafeMutableRawPointer) throws(HTTPClientError) {
        self.multi = multi
        let context = Unmanaged.passUnretained(self).toOpaque()
        for code in [
            CTidingsShims_curl_multi_setopt_socket_function(multi, curlWatchSocket),
            CTidingsShims_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context),
            CTidingsShims_curl_multi_setopt_timer_function(multi, curlSetTimer),
            CTidingsShims_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context),
        ] where code != CURLM_OK {
            throw HTTPClientError(
                code: .transport, message: "could not configure libcurl's multi handle: \(String(cString: curl_multi_strerror(code)))")
        }
    }

    /// Ends the driver thread's current or next wait. Any thread.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeup, &one, MemoryLayout<UInt64>.size)
    }

    /// Waits up to `longest` for a ready socket, a wakeup or libcurl's
    /// timer; calls `ready` with each ready socket and what it is ready
    /// for (CURL_CSELECT_ bits), then answers whether libcurl's timer has
    /// expired (it is cleared: libcurl sets the next one).
    func wait(atMost longest: Duration, _ ready: (curl_socket_t, Int32) -> Void) -> Bool {
        var timeout = longest
        if let deadline { timeout = min(timeout, max(.zero, ContinuousClock.now.duration(to: deadline))) }
        let count = CTidingsShims_epoll_wait(epoll, readyFDs, readiness, Int32(Self.capacity), Int32(timeout.roundedUpMilliseconds))
        // -1 is EINTR: nothing ready.
        for index in 0..<max(Int(count), 0) {
            if readyFDs[index] == wakeup {
                var value: UInt64 = 0
                _ = read(wakeup, &value, MemoryLayout<UInt64>.size)
            } else {
                ready(readyFDs[index], readiness[index])
            }
        }
        guard let deadline, ContinuousClock.now >= deadline else { return false }
        self.deadline = nil
        return true
    }

    /// Closes the epoll set and the eventfd, once libcurl's multi handle is
    /// cleaned up (which may still report sockets) and no thread can wake.
    func close() {
        Glibc.close(epoll)
        Glibc.close(wakeup)
        readyFDs.deallocate()
        readiness.deallocate()
    }

    // MARK: Callback bodies

    fileprivate func watch(_ socket: curl_socket_t, what: Int32, isWatched: Bool) {
        if what == CURL_POLL_REMOVE {
            // Fails only for a socket already closed, which left the set then.
            _ = CTidingsShims_epoll_unwatch(epoll, socket)
            return
        }
        let readable: Int32 = what == CURL_POLL_IN || what == CURL_POLL_INOUT ? 1 : 0
        let writable: Int32 = what == CURL_POLL_OUT || what == CURL_POLL_INOUT ? 1 : 0
        if CTidingsShims_epoll_watch(epoll, socket, readable, writable, isWatched ? 1 : 0) != 0 {
            // A descriptor closed and reused unseen, or watched unassigned: the other way.
            let failure = errno
            guard failure == ENOENT || failure == EEXIST,
                CTidingsShims_epoll_watch(epoll, socket, readable, writable, isWatched ? 0 : 1) == 0
            else {
                // The transfer then ends at its timeout.
                logger.error("could not watch a socket for libcurl", metadata: ["errno": String(errno)])
                return
            }
        }
        // Marks the socket as in the set: later calls change it in place.
        if !isWatched, let multi { curl_multi_assign(multi, socket, UnsafeMutableRawPointer(bitPattern: 1)) }
    }

    fileprivate func setTimer(milliseconds: Int) {
        deadline = milliseconds < 0 ? nil : ContinuousClock.now + .milliseconds(milliseconds)
    }
}

// libcurl's C callbacks: they capture nothing; the events arrive as the context pointer.

private func curlWatchSocket(
    easy: UnsafeMutableRawPointer?, socket: curl_socket_t, what: Int32, context: UnsafeMutableRawPointer?,
    socketContext: UnsafeMutableRawPointer?
) -> Int32 {
    guard let context else { return 0 }
    Unmanaged<CurlSocketEvents>.fromOpaque(context).takeUnretainedValue().watch(socket, what: what, isWatched: socketContext != nil)
    return 0
}

private func curlSetTimer(multi: UnsafeMutableRawPointer?, milliseconds: Int, context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    Unmanaged<CurlSocketEvents>.fromOpaque(context).takeUnretainedValue().setTimer(milliseconds: milliseconds)
    return 0
}
