import Foundation
import Testing
import TidingsApp
import TidingsPostgres
import TidingsTestSupport

/// badge.updated end to end: triggers queue it, supersede and coalescing
/// shape it, the dispatcher posts it to a real receiver.
@Suite struct BadgeDeliveryTests {
    @Test func aBurstOfChangesReachesTheReceiverAsOneBadgeWithTheFinalCount() async throws {
        let receiver = try WebhookReceiver()
        // The window must outlast the 50 transactions below: on a loaded
        // machine (load 11) they took more than the 1 s this used to be.
        let harness = try DispatcherHarness {
            $0.badgeCoalescingWindow = .seconds(4)
            $0.pollConcurrency = 0
        }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        _ = try await harness.createWebhook(key: user.key, url: receiver.url("/badges"), eventTypes: ["badge.updated"])
        let watchIDs = try baselineWatches(harness, user: user.id, count: 5)

        // 50 changes in a burst, as 50 separate transactions.
        for round in 0..<10 {
            for watch in watchIDs {
                _ = try harness.database.query(
                    """
                    SELECT count(*) FROM record_changes(
                        ARRAY[\(watch)::uuid], ARRAY['changed'], ARRAY[md5(\("\(watch) \(round)")) || md5(\("\(round)"))], ARRAY['text'], ARRAY[false],
                        ARRAY[''], ARRAY[200], ARRAY[4::bigint])
                    """)
            }
        }
        #expect(try await eventually { !receiver.requests("/badges").isEmpty })
        // Give a second (wrong) delivery time to show up before counting:
        // a negative check, so a fixed wait.
        try await Task.sleep(for: .seconds(2))

        let received = receiver.requests("/badges")
        #expect(received.count == 1, "one delivery for the whole burst, got \(received.count)")
        let data = try #require(received.first?.json["data"] as? [String: Any])
        #expect(data["count"] as? Int == 50)
        #expect(data["sequence"] as? Int == 50)
        #expect(received.first?.json["type"] as? String == "badge.updated")

        // A read afterwards is a new number: delivered again, with a higher sequence.
        let read = try await harness.send("POST", "/v1/badge/read-all", token: user.key)
        #expect(read.status == 200)
        #expect(try await eventually { receiver.requests("/badges").count == 2 })
        let after = try #require(receiver.requests("/badges").last?.json["data"] as? [String: Any])
        #expect(after["count"] as? Int == 0)
        #expect(after["sequence"] as? Int == 51)
        let ids = receiver.requests("/badges").map(\.webhookID)
        #expect(Set(ids).count == ids.count, "each delivery carries its own event id")
    }

    /// Watches on public literal addresses (never fetched: the poller is
    /// off) with a baseline hash each.
    private func baselineWatches(_ harness: DispatcherHarness, user: UUID, count: Int) throws -> [String] {
        try (0..<count).map { index in
            let id: String = try harness.database.query(
                """
                WITH target AS (
                    INSERT INTO targets (url, headers_fingerprint) VALUES (\("https://93.184.215.14/badge-\(index)-\(user)"), repeat('0', 64))
                    RETURNING id
                )
                INSERT INTO watches (user_id, target_id, name, interval_seconds, content_hash)
                SELECT \(user)::uuid, id, 'badge test', 300, repeat('0', 64) FROM target
                RETURNING id::text AS id
                """)[0].decode("id")
            return id
        }
    }
}
