import Foundation
import Testing
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@Suite struct NotificationLoopTests {
    private final class Events: Sendable {
        let log = AdaptiveMutex<[String]>([])

        func add(_ event: String) {
            log.withLock { $0.append(event) }
        }

        func waitFor(_ predicate: ([String]) -> Bool) -> Bool {
            eventuallyBlocking(timeout: .seconds(10)) { log.withLock { predicate($0) } }
        }
    }

    @Test func handsOverNotificationsAndListensAgainAfterLosingTheSession() throws {
        try TestDatabase.withDatabase { client in
            let events = Events()
            let loop = PostgresNotificationLoop(
                configuration: client.configuration,
                channels: ["loop_test"],
                threadName: "loop-test",
                handlers: .init(
                    listening: { events.add("listening") },
                    received: { notifications in notifications.forEach { events.add("received \($0.payload)") } },
                    lost: { _ in events.add("lost") }
                )
            )
            loop.start()
            defer { loop.stop() }
            #expect(events.waitFor { $0 == ["listening"] })

            _ = try client.query("SELECT pg_notify('loop_test', 'one')")
            #expect(events.waitFor { $0.last == "received one" })

            _ = try client.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND query LIKE 'LISTEN%'
                """)
            #expect(events.waitFor { $0.suffix(2) == ["lost", "listening"] })

            _ = try client.query("SELECT pg_notify('loop_test', 'two')")
            #expect(events.waitFor { $0.last == "received two" })
        }
    }

    @Test func stopEndsTheThreadEvenWhileTheServerCannotBeReached() {
        var configuration = PostgresConfiguration(connectionString: "postgresql://nobody@/none?host=/nonexistent")
        configuration.connectTimeout = .seconds(2)
        let events = Events()
        let loop = PostgresNotificationLoop(
            configuration: configuration,
            channels: ["loop_test"],
            threadName: "loop-test",
            handlers: .init(listening: { events.add("listening") }, received: { _ in }, lost: { _ in events.add("lost") })
        )
        loop.start()
        #expect(events.waitFor { $0.contains("lost") })
        let stopping = ContinuousClock.now
        loop.stop()
        #expect(ContinuousClock.now - stopping < .seconds(5), "stop waits one slice, not for the next retry")
        #expect(!events.log.withLock { $0.contains("listening") })
    }
}
