import Foundation
import Synchronization
import Testing
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@Suite struct PoolTests {
    @Test func twoHundredConcurrentRequestsShareFourConnections() throws {
        let applicationName = "pool-test-\(UUID().uuidString.prefix(8))"
        let registry = MetricsRegistry()
        try TestDatabase.withDatabaseURL { url in
            let client = PostgresClient(
                configuration: PostgresConfiguration(
                    connectionString: url, maxConnections: 4, acquireTimeout: .seconds(60), applicationName: applicationName),
                logger: TestDatabase.logger,
                metrics: registry
            )
            defer { client.stop() }
            let monitor = PostgresClient(
                configuration: PostgresConfiguration(connectionString: url, maxConnections: 1), logger: TestDatabase.logger)
            defer { monitor.stop() }

            let failures = AdaptiveMutex<[String]>([])
            let peakInUse = AdaptiveMutex(0)
            let peakServerConnections = AdaptiveMutex(0)
            let running = Atomic(true)
            let monitoring = Thread {
                // Samples the server's view while the load runs.
                while running.load(ordering: .relaxed) {
                    let count =
                        (try? monitor.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = \(applicationName)").first?
                            .decode("n", as: Int.self)) ?? 0
                    peakServerConnections.withLock { $0 = max($0, count) }
                }
            }
            monitoring.start()

            let finished = ConcurrentThreads.run(count: 200) { index in
                do {
                    // pg_sleep: each query holds its connection a moment, so the threads contend.
                    let rows = try client.query("SELECT \(index)::int AS n, pg_sleep(0.002)::text AS slept")
                    let value = try rows.first?.decode("n", as: Int.self)
                    if value != index {
                        failures.withLock { $0.append("request \(index) read \(String(describing: value))") }
                    }
                    let inUse = client.statistics.inUse
                    peakInUse.withLock { $0 = max($0, inUse) }
                } catch {
                    failures.withLock { $0.append(String(reflecting: error)) }
                }
            }
            running.store(false, ordering: .relaxed)
            #expect(finished)
            #expect(failures.withLock { $0 } == [])
            #expect(peakInUse.withLock { $0 } <= 4)
            #expect(peakServerConnections.withLock { $0 } <= 4)
            #expect(peakServerConnections.withLock { $0 } >= 1)
            let statistics = client.statistics
            #expect(statistics.totalCreated <= 4)
            #expect(statistics.inUse == 0 && statistics.waiters == 0 && statistics.idle == statistics.totalCreated)
            let metrics = registry.renderPrometheus()
            #expect(metrics.contains("tidings_db_pool_max_connections 4\n"))
            #expect(metrics.contains("tidings_db_pool_connections_in_use 0\n"))
            #expect(metrics.contains("tidings_db_pool_waiters 0\n"))
        }
    }

    @Test func acquireTimesOutWhenThePoolIsExhausted() throws {
        let registry = MetricsRegistry()
        try TestDatabase.withDatabase(
            configure: {
                $0.maxConnections = 1; $0.acquireTimeout = .milliseconds(300)
            }, metrics: registry
        ) { client in
            let leased = DispatchSemaphore(value: 0)
            let giveBack = DispatchSemaphore(value: 0)
            let holderDone = DispatchSemaphore(value: 0)
            Thread {
                _ = try? client.withConnection { _ in
                    leased.signal()
                    giveBack.wait()
                }
                holderDone.signal()
            }.start()
            #expect(leased.wait(timeout: .now() + 10) == .success)

            let clock = ContinuousClock()
            let started = clock.now
            let error = try #require(throws: PostgresError.self) { try client.query("SELECT 1") }
            let waited = clock.now - started
            #expect(error.code == .poolTimeout)
            #expect(waited >= .milliseconds(250) && waited < .seconds(5))
            #expect(client.statistics.waiters == 0)
            #expect(registry.counter("tidings_db_pool_acquire_timeouts_total", help: "").value() == 1)

            giveBack.signal()
            #expect(holderDone.wait(timeout: .now() + 10) == .success)
            #expect(try client.query("SELECT 1 AS one").first?.decode("one", as: Int.self) == 1)
        }
    }

    @Test func waiterGetsTheConnectionWhenItIsReturned() throws {
        try TestDatabase.withDatabase(configure: {
            $0.maxConnections = 1; $0.acquireTimeout = .seconds(10)
        }) { client in
            let leased = DispatchSemaphore(value: 0)
            Thread {
                _ = try? client.withConnection { _ in
                    leased.signal()
                    // Hold the only connection until the main thread is queued behind it.
                    _ = eventuallyBlocking(timeout: .seconds(10), every: .milliseconds(1)) { client.statistics.waiters > 0 }
                }
            }.start()
            #expect(leased.wait(timeout: .now() + 10) == .success)
            let value = try client.query("SELECT 2 AS two").first?.decode("two", as: Int.self)
            #expect(value == 2)
            #expect(client.statistics.totalCreated == 1)
        }
    }

    @Test func closedPoolRejectsLeases() throws {
        try TestDatabase.withDatabase { client in
            _ = try client.query("SELECT 1")
            client.stop()
            client.stop()
            let error = try #require(throws: PostgresError.self) { try client.query("SELECT 1") }
            #expect(error.code == .poolClosed)
            #expect(client.statistics.idle == 0)
        }
    }
}
