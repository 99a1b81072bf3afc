import Glibc
internal import CTidingsShims

/// The sockets libcurl asks the driver thread to watch, in one epoll set,
/// plus an eventfd other threads write to wake that thread. Only the
/// driver thread watches, waits and closes; `wake` may come from any
/// thread until `close`.
struct SocketReadiness {
    /// What a socket became ready for.
    struct Event {
        let socket: Int32
        let readable: Bool
        let writable: Bool
        /// An error or hang-up: libcurl finds out which when it reads.
        let failed: Bool
    }

    private let epoll: Int32
    private let wakeup: Int32
    /// Filled by `wait`; sized for the busiest turns of a poller.
    private let events: UnsafeMutableBufferPointer<epoll_event>

    init() throws(HTTPClientError) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            throw HTTPClientError(code: .transport, message: "could not create an epoll set (errno \(errno))")
        }
        let wakeup = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeup >= 0 else {
            let error = errno
            Glibc.close(epoll)
            throw HTTPClientError(code: .transport, message: "could not create an eventfd (errno \(error))")
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeup))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else {
            let error = errno
            Glibc.close(wakeup)
            Glibc.close(epoll)
            throw HTTPClientError(code: .transport, message: "could not watch the eventfd (errno \(error))")
        }
        self.epoll = epoll
        self.wakeup = wakeup
        events = .allocate(capacity: 256)
    }

    /// Watches `socket` for what libcurl wants (replacing what it wanted
    /// before); the errno on failure.
    func watch(_ socket: Int32, reading: Bool, writing: Bool) -> Int32? {
        var event = epoll_event(
            events: (reading ? EPOLLIN.rawValue : 0) | (writing ? EPOLLOUT.rawValue : 0),
            data: epoll_data_t(fd: socket)
        )
        if epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) == 0 { return nil }
        guard errno == ENOENT else { return errno }
        return epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 ? nil : errno
    }

    /// Stops watching `socket`. libcurl may already have closed it, which
    /// took it out of the set.
    func unwatch(_ socket: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, &event)
    }

    /// Ends the driver thread's current or next `wait`.
    func wake() {
        // Fails only with EAGAIN, when the counter is already far from 0:
        // the thread is woken either way.
        _ = eventfd_write(wakeup, 1)
    }

    /// Waits up to `timeoutMilliseconds` (-1: without limit) for sockets
    /// or a wake; the ready sockets, or the errno of a failed wait.
    func wait(timeoutMilliseconds: Int32) -> Result<[Event], SocketReadinessError> {
        let count = epoll_wait(epoll, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        guard count >= 0 else {
            return errno == EINTR ? .success([]) : .failure(SocketReadinessError(errno: errno))
        }
        var ready: [Event] = []
        ready.reserveCapacity(Int(count))
        for event in events.prefix(Int(count)) {
            let socket = event.data.fd
            if socket == wakeup {
                var value: eventfd_t = 0
                _ = eventfd_read(wakeup, &value)
                continue
            }
            ready.append(Event(
                socket: socket,
                readable: event.events & EPOLLIN.rawValue != 0,
                writable: event.events & EPOLLOUT.rawValue != 0,
                failed: event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
            ))
        }
        return .success(ready)
    }

    /// Closes the set and the eventfd; no `wake` may follow.
    func close() {
        Glibc.close(wakeup)
        Glibc.close(epoll)
        events.deallocate()
    }
}

struct SocketReadinessError: Error {
    let errno: Int32
}
