/// A dedicated connection that LISTENs on some channels and hands out the
/// notifications that arrive. It is not pooled: a pooled connection would
/// drop its LISTENs when reused. Use it from one thread; after it throws,
/// open a new one (the server forgets LISTENs with the session, and
/// notifications sent meanwhile are lost, so callers re-check their state).
package final class PostgresListener {
    package let channels: [String]
    private let connection: PostgresConnection

    package init(configuration: PostgresConfiguration, channels: [String]) throws(PostgresError) {
        self.channels = channels
        connection = try PostgresConnection(configuration: configuration)
        for channel in channels {
            try connection.listen(to: channel)
        }
    }

    /// Blocks up to `timeout` for notifications; returns at once with those
    /// already received. Empty when none came in time.
    package func wait(timeout: Duration) throws(PostgresError) -> [PostgresNotification] {
        try connection.notifications(waitingUpTo: timeout)
    }

    package var isBroken: Bool {
        connection.isBroken
    }
}
