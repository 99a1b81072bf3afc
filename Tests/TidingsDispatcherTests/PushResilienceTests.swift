import Foundation
import Testing
import TidingsLocalPostgres
import TidingsPostgres
import TidingsTestSupport
import TidingsSynchronization
import TidingsObservability
import TidingsApp
import TidingsDomain

/// Direct push survives SIGKILL and a PostgreSQL restart: pushes in flight
/// or queued go out afterwards, none lost.
@Suite(.serialized) struct PushResilienceTests {
    static let devices = 600

    @Test(.timeLimit(.minutes(3)))
    func sigkillMidBurstThenRestartSendsEveryPush() async throws {
        let mock = try await MockPushServer.start()
        defer { mock.stop() }
        // No answer comes before the kill, so the whole burst is in flight
        // or queued when the process dies. (At 2 s a CI run had all 600
        // answered first: the wait below woke seconds late on a loaded
        // machine.) Attempts time out at 3 s and are retried meanwhile.
        try await mock.setDelay(60)
        let databaseURL = try TestDatabase.create()
        let port = TestPorts.randomListenPort()
        let environment = TidingsProcess.environment(databaseURL: databaseURL, port: port, extra: [
            "TIDINGS_APNS_URL": mock.baseURL,
            "TIDINGS_PUSH_CA_FILE": mock.caFile,
            "TIDINGS_PUSH_TIMEOUT": "3s",
            // A mock slowed by a loaded machine may time pushes out: they
            // are retried soon rather than on the production schedule.
            "TIDINGS_PUSH_RETRY_SCHEDULE": "1s,1s,1s,1s,1s,1s,1s,1s",
            "TIDINGS_MAX_DEVICES_PER_USER": "1000",
        ])
        let api = try APIClient(port: port)
        defer { api.stop() }
        var process = try TidingsProcess(environment: environment)
        defer { process.terminate() }
        try await api.waitUntilReady()
        try await api.createPushApp([
            "platform": "apns", "app_id": mock.startup.topic, "environment": "sandbox",
            "team_id": mock.startup.team_id, "key_id": mock.startup.key_id, "private_key": try mock.apnsKey,
        ])
        let user = try await api.createUser()
        let database = TestSupport.databaseClient(databaseURL)
        defer { database.stop() }
        _ = try database.query("""
            INSERT INTO devices (user_id, platform, push_token, app_id)
            SELECT \(user.id)::uuid, 'ios', lpad(to_hex(n), 64, '0'), \(mock.startup.topic)
            FROM generate_series(1, \(Self.devices)) AS n
            """)
        // One count change: a badge push to every device.
        _ = try database.query("""
            SELECT count(*) FROM queue_events(ARRAY[ROW(\(user.id)::uuid, 'badge.updated', '{"count": 7}'::jsonb, NULL, NULL)::outbox_event])
            """)

        #expect(try await eventually(timeout: .seconds(60), every: .milliseconds(100)) { ((try? await mock.stats())?.apns.count ?? 0) >= 50 })
        process.kill()
        let sent = try database.query("SELECT count(*)::int AS n FROM pushes WHERE status = 'sent'")[0].decode("n", as: Int.self)
        #expect(sent < Self.devices, "the burst finished before the kill; the test proves nothing")
        // Slow answers were for the kill to land mid-burst; what follows
        // measures the takeover, not a mock slowed further by a loaded
        // machine (answers past the 3 s timeout are retried, and counted).
        try await mock.setDelay(0.2)

        let restarted = ContinuousClock.now
        process = try TidingsProcess(environment: environment)
        #expect(try await eventually(timeout: .seconds(60), every: .milliseconds(100)) {
            try database.query("SELECT count(*)::int AS n FROM pushes WHERE status <> 'sent'")[0].decode("n", as: Int.self) == 0
        })
        // The dead owner's leases are freed after the push attempt's grace
        // (3 x 3 s + 2 s); then the pushes go out at once.
        #expect(ContinuousClock.now - restarted < .seconds(45))
        let received = try await mock.stats().apns.filter { $0.status == 200 }
        let tokens = Set(received.compactMap(\.token))
        #expect(tokens.count == Self.devices, "\(tokens.count) of \(Self.devices) devices got their push")
        #expect(received.allSatisfy { $0.payload == #"{"aps":{"badge":7}}"# })
        #expect(try database.query("SELECT count(*)::int AS n FROM pushes")[0].decode("n", as: Int.self) == Self.devices)
    }

    @Test(.timeLimit(.minutes(3)))
    func postgresRestartMidBurstLosesNoPush() async throws {
        let mock = try await MockPushServer.start()
        defer { mock.stop() }
        // No answer comes before PostgreSQL stops, so the burst is in
        // flight or queued then, however late this test wakes.
        try await mock.setDelay(60)
        let directory = "/tmp/tidings-push-pg-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = LocalPostgresCluster(directory: directory, logger: TestSupport.quietLogger)
        try cluster.start()
        defer { try? cluster.stop() }
        let harness = try DispatcherHarness(databaseURL: cluster.connectionString) { configuration in
            configuration.apnsURL = mock.baseURL
            configuration.pushCAFile = mock.caFile
            configuration.pushTimeout = .seconds(3)
            configuration.pushRetrySchedule = Array(repeating: .seconds(1), count: 8)
            configuration.userLimits.devices = 1000
        }
        defer { harness.stop() }
        let app = try await harness.send("POST", "/v1/push-apps", token: DispatcherHarness.adminToken, json: [
            "platform": "apns", "app_id": mock.startup.topic, "environment": "sandbox",
            "team_id": mock.startup.team_id, "key_id": mock.startup.key_id, "private_key": try mock.apnsKey,
        ])
        #expect(app.status == 201)
        let user = try await harness.createUser()
        _ = try harness.database.query("""
            INSERT INTO devices (user_id, platform, push_token, app_id)
            SELECT \(user.id)::uuid, 'ios', lpad(to_hex(n), 64, '0'), \(mock.startup.topic)
            FROM generate_series(1, \(Self.devices)) AS n
            """)
        _ = try harness.database.query("""
            SELECT count(*) FROM queue_events(ARRAY[ROW(\(user.id)::uuid, 'badge.updated', '{"count": 4}'::jsonb, NULL, NULL)::outbox_event])
            """)

        #expect(try await eventually(timeout: .seconds(60), every: .milliseconds(100)) { ((try? await mock.stats())?.apns.count ?? 0) >= 50 })
        let sent = try harness.scalar("SELECT count(*)::int AS n FROM pushes WHERE status = 'sent'")
        #expect(sent < Self.devices, "the burst finished before PostgreSQL stopped; the test proves nothing")
        try cluster.stop()
        try await Task.sleep(for: .seconds(2))
        try cluster.start()
        try await mock.setDelay(0.2)

        #expect(try await eventually(timeout: .seconds(90), every: .milliseconds(200)) {
            (try? harness.scalar("SELECT count(*)::int AS n FROM pushes WHERE status <> 'sent'")) == 0
        })
        let tokens = Set(try await mock.stats().apns.filter { $0.status == 200 }.compactMap(\.token))
        #expect(tokens.count == Self.devices, "\(tokens.count) of \(Self.devices) devices got their push")
        #expect(harness.logSink.lines.contains { $0.contains("push dispatcher cannot reach the database") || $0.contains("could not record push attempts") })
    }
}
