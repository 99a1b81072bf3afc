internal import CLibPQ
import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#endif

extension PostgresConnection {
    /// `LISTEN "channel"`, the name quoted by libpq.
    func listen(to channel: String) throws(PostgresError) {
        try checkUsable()
        guard let quoted = channel.withCString({ PQescapeIdentifier(handle, $0, strlen($0)) }) else {
            throw PostgresError(code: .server, message: String(cString: PQerrorMessage(handle)).trimmingTrailingWhitespace)
        }
        let identifier = String(cString: quoted)
        PQfreemem(quoted)
        try execute(unsafeSQL: "LISTEN \(identifier)")
    }

    /// Notifications that arrived, waiting on the socket up to `timeout`
    /// when none is buffered yet; empty after the timeout. A lost session
    /// (server restart, network) throws `.connectionClosed` and marks the
    /// connection broken.
    func notifications(waitingUpTo timeout: Duration) throws(PostgresError) -> [PostgresNotification] {
        try checkUsable()
        var received = bufferedNotifications()
        guard received.isEmpty else { return received }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw lostConnection() }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(clamping: max(timeout, .zero).inMilliseconds))
        if ready < 0 && errno != EINTR {
            throw lostConnection()
        }
        guard ready > 0 else { return [] }
        // Reads whatever arrived; a closed socket or a FATAL message from a
        // shutting-down server leaves the connection bad.
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { throw lostConnection() }
        received = bufferedNotifications()
        return received
    }

    private func bufferedNotifications() -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            received.append(
                PostgresNotification(
                    channel: String(cString: notify.pointee.relname),
                    payload: notify.pointee.extra.map { String(cString: $0) } ?? "",
                    senderProcessID: notify.pointee.be_pid
                ))
            PQfreemem(notify)
        }
        return received
    }

    private func lostConnection() -> PostgresError {
        markBroken()
        return PostgresError(code: .connectionClosed, message: String(cString: PQerrorMessage(handle)).trimmingTrailingWhitespace)
    }
}
