import Foundation
import Testing
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// The push log keeps finished pushes for the retention and no longer;
/// pending ones stay whatever their age.
@Suite struct PushLogRetentionTests {
    @Test func finishedPushesOlderThanTheRetentionArePruned() async throws {
        let harness = try DispatcherHarness()
        defer { harness.stop() }
        let app = try await harness.send(
            "POST", "/v1/push-apps", token: DispatcherHarness.adminToken,
            json: [
                "platform": "apns", "app_id": "com.example.retention", "environment": "sandbox",
                "team_id": "TEAM123456", "key_id": "KEY7890ABC", "private_key": TestPushKeys.p256.pem,
            ])
        #expect(app.status == 201, "\(app.text)")
        let user = try await harness.createUser()
        _ = try harness.database.query(
            """
            INSERT INTO devices (user_id, platform, push_token, app_id)
            VALUES (\(user.id)::uuid, 'ios', lpad('1', 64, '0'), 'com.example.retention')
            """)
        // Old: sent, failed, superseded and skipped (pruned); pending (kept).
        // New: sent (kept). Far in the future, so the dispatcher leaves the
        // pending one alone.
        _ = try harness.database.query(
            """
            INSERT INTO pushes (device_id, user_id, push_app_id, kind, badge, status, completed_at, next_attempt_at, created_at, reason)
            SELECT d.id, d.user_id, CASE WHEN v.status = 'skipped' THEN NULL ELSE (SELECT id FROM push_apps) END,
                   'badge', 1, v.status, CASE WHEN v.status = 'pending' THEN NULL ELSE now() END,
                   now() + interval '1 day', now() - v.age, v.label
            FROM devices d,
                 (VALUES ('sent', interval '40 days', 'old sent'), ('failed', interval '40 days', 'old failed'),
                         ('superseded', interval '31 days', 'old superseded'), ('skipped', interval '40 days', 'old skipped'),
                         ('pending', interval '40 days', 'old pending'), ('sent', interval '29 days', 'new sent'))
                 AS v(status, age, label)
            WHERE d.user_id = \(user.id)::uuid
            """)
        let store = PushStore(database: harness.database)

        #expect(try store.pruneFinished(olderThan: .seconds(30 * 86_400), batchSize: 3) == 3)
        #expect(try store.pruneFinished(olderThan: .seconds(30 * 86_400), batchSize: 3) == 1)
        #expect(try store.pruneFinished(olderThan: .seconds(30 * 86_400), batchSize: 3) == 0)

        let left = try harness.database.query("SELECT reason FROM pushes ORDER BY reason").map { try $0.decode("reason", as: String.self) }
        #expect(left == ["new sent", "old pending"])
    }
}
