import Testing
import TidingsPostgres
import TidingsTestSupport

@Suite struct ListenerTests {
    @Test func notificationsArriveAfterCommitWithTheirPayload() throws {
        try TestDatabase.withDatabase { client in
            let listener = try PostgresListener(configuration: client.configuration, channels: ["tidings_test"])
            #expect(try listener.wait(timeout: .milliseconds(50)).isEmpty)

            try client.withTransaction { connection in
                _ = try connection.query("SELECT pg_notify('tidings_test', 'first')")
                // Not before the commit.
                #expect(try listener.wait(timeout: .milliseconds(50)).isEmpty)
            }
            let received = try listener.wait(timeout: .seconds(5))

            #expect(received.map(\.channel) == ["tidings_test"])
            #expect(received.map(\.payload) == ["first"])
        }
    }

    @Test func onlyTheChannelsListenedToAreReceived() throws {
        try TestDatabase.withDatabase { client in
            let listener = try PostgresListener(configuration: client.configuration, channels: ["wanted", "Mixed Case"])
            _ = try client.query("SELECT pg_notify('other', 'x')")
            _ = try client.query("SELECT pg_notify('Mixed Case', 'quoted')")
            _ = try client.query("SELECT pg_notify('wanted', 'y')")

            var received: [PostgresNotification] = []
            let deadline = ContinuousClock.now + .seconds(5)
            while received.count < 2 && ContinuousClock.now < deadline {
                received += try listener.wait(timeout: .milliseconds(200))
            }

            #expect(received.map(\.payload) == ["quoted", "y"])
        }
    }

    @Test func waitingWithoutNotificationsReturnsAfterTheTimeout() throws {
        try TestDatabase.withDatabase { client in
            let listener = try PostgresListener(configuration: client.configuration, channels: ["quiet"])
            let started = ContinuousClock.now

            #expect(try listener.wait(timeout: .milliseconds(300)).isEmpty)
            let waited = ContinuousClock.now - started
            #expect(waited >= .milliseconds(250))
            #expect(waited < .seconds(30))
        }
    }

    @Test func aTerminatedSessionThrowsConnectionClosed() throws {
        try TestDatabase.withDatabase { client in
            let listener = try PostgresListener(configuration: client.configuration, channels: ["doomed"])
            _ = try client.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """)

            var thrown: PostgresError?
            let deadline = ContinuousClock.now + .seconds(5)
            while thrown == nil && ContinuousClock.now < deadline {
                do {
                    _ = try listener.wait(timeout: .milliseconds(200))
                } catch {
                    thrown = error as? PostgresError
                }
            }

            #expect(thrown?.code == .connectionClosed)
            #expect(listener.isBroken)
        }
    }
}
