import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// The delivery log, manual retry, recovery and test events through the API.
@Suite struct ReplayAPITests {
    @Test func manualRetryAndRecoverSendFailedDeliveriesAgain() async throws {
        let receiver = try WebhookReceiver { _, _ in .init(status: 500) }
        let harness = try DispatcherHarness { $0.webhookRetrySchedule = [.zero] }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/hook"))
        let id = webhook.id.uuidString.lowercased()
        let started = Date()
        try harness.enqueueBurst(user: user.id, count: 3)
        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'failed'") == 3
            })
        receiver.setBehaviour { _, _ in .init(status: 200, body: "thanks") }

        // One delivery, by hand.
        let failed = try await harness.deliveries(of: webhook.id, key: user.key, query: "?status=failed")
        #expect(failed.count == 3)
        let first = try #require(failed.first?["id"] as? String)
        let retried = try await harness.send("POST", "/v1/deliveries/\(first)/retry", token: user.key)
        #expect(retried.status == 202, "\(retried.text)")
        #expect(try retried.object()["status"] as? String == "pending")
        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded'") == 1
            })

        // The rest, by time.
        let recovered = try await harness.send(
            "POST", "/v1/webhooks/\(id)/recover", token: user.key,
            json: [
                "since": ISO8601DateFormatter().string(from: started.addingTimeInterval(-60))
            ])
        #expect(recovered.status == 202, "\(recovered.text)")
        #expect(try recovered.object()["requeued"] as? Int == 2)
        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded'") == 3
            })
        // Every event went out twice (failed, then replayed) under the same webhook-id.
        let byID = Dictionary(grouping: receiver.requests("/hook"), by: \.webhookID)
        #expect(byID.count == 3 && byID.values.allSatisfy { $0.count == 2 })

        let log = try await harness.deliveries(of: webhook.id, key: user.key, query: "?status=succeeded")
        #expect(log.count == 3)
        for delivery in log {
            let attempts = try #require(delivery["attempts"] as? [[String: Any]])
            #expect(attempts.map { $0["status_code"] as? Int } == [500, 200])
            #expect(attempts.last?["response_body"] as? String == "thanks")
        }
    }

    /// However often a delivery was attempted, the log shows its latest
    /// five attempts with 1,024 characters of each answer: what a listing
    /// holds is bounded, not a receiver's 16 KiB times every retry.
    @Test func theLogListsTheLatestAttemptsWithTheirBodiesCut() async throws {
        let receiver = try WebhookReceiver { _, previous in
            .init(status: 500, body: "attempt \(previous + 1) " + String(repeating: "x", count: 20_000))
        }
        let harness = try DispatcherHarness { $0.webhookRetrySchedule = Array(repeating: .zero, count: 7) }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/hook"))
        try harness.enqueue(user: user.id)
        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'failed'") == 1
            })
        // The database keeps 16 KiB of every answer.
        #expect(try harness.scalar("SELECT count(*)::int AS n FROM delivery_attempts WHERE length(response_body) = 16384") == 7)

        let delivery = try #require(try await harness.deliveries(of: webhook.id, key: user.key).first)
        let attempts = try #require(delivery["attempts"] as? [[String: Any]])
        #expect(delivery["attempt_count"] as? Int == 7)
        #expect(attempts.count == 5)
        let bodies = attempts.compactMap { $0["response_body"] as? String }
        #expect(bodies.map { $0.prefix(10) } == (3...7).map { "attempt \($0) ".prefix(10) })
        #expect(bodies.allSatisfy { $0.count == 1024 })
        #expect(attempts.allSatisfy { $0["response_truncated"] as? Bool == true })
    }

    @Test func testEventsReachOnlyTheirWebhook() async throws {
        let receiver = try WebhookReceiver()
        let harness = try DispatcherHarness()
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/one"), eventTypes: ["badge.updated"])
        _ = try await harness.createWebhook(key: user.key, url: receiver.url("/two"))

        let sent = try await harness.send("POST", "/v1/webhooks/\(webhook.id.uuidString.lowercased())/test", token: user.key)
        #expect(sent.status == 202, "\(sent.text)")
        let eventID = try #require(try sent.object()["event_id"] as? String)

        #expect(try await eventually { receiver.requests("/one").count == 1 })
        let request = receiver.requests("/one")[0]
        #expect(request.webhookID == eventID.lowercased())
        #expect(request.json["type"] as? String == "webhook.test")
        // Deliveries are made as the event is stored: one, to /one's webhook.
        #expect(try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE event_id = \(eventID)::uuid") == 1)
        #expect(receiver.requests("/two").isEmpty)
        #expect(try await harness.deliveries(of: webhook.id, key: user.key, query: "?event_type=webhook.test").count == 1)
    }

    @Test func anotherOwnersWebhooksAndDeliveriesAreNotFound() async throws {
        let receiver = try WebhookReceiver()
        let harness = try DispatcherHarness()
        defer { harness.stop(); receiver.stop() }
        let owner = try await harness.createUser()
        let stranger = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: owner.key, url: receiver.url("/hook"))
        let global = try await harness.createWebhook(key: nil, url: receiver.url("/global"))
        try harness.enqueue(user: owner.id)
        #expect(try await eventually { receiver.requests().count == 2 })
        // A delivery stays leased until its result is written; a retry of
        // a leased one is refused as in flight.
        #expect(try await eventually { try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status <> 'succeeded'") == 0 })
        let delivery: UUID = try harness.database.query("SELECT id FROM deliveries WHERE webhook_id = \(webhook.id)")[0].decode("id")
        let globalDelivery: UUID = try harness.database.query("SELECT id FROM deliveries WHERE webhook_id = \(global.id)")[0].decode("id")
        let id = webhook.id.uuidString.lowercased()

        for (method, path, body) in [
            ("GET", "/v1/webhooks/\(id)/deliveries", nil),
            ("POST", "/v1/webhooks/\(id)/recover", ["since": "2020-01-01T00:00:00Z"]),
            ("POST", "/v1/webhooks/\(id)/test", nil),
            ("POST", "/v1/deliveries/\(delivery.uuidString.lowercased())/retry", nil),
            ("POST", "/v1/deliveries/\(globalDelivery.uuidString.lowercased())/retry", nil),
            ("GET", "/v1/webhooks/\(global.id.uuidString.lowercased())/deliveries", nil),
        ] as [(String, String, [String: String]?)] {
            let response = try await harness.send(method, path, token: stranger.key, json: body)
            #expect(response.status == 404, "\(method) \(path): \(response.text)")
        }
        // The admin reaches global webhooks' deliveries under /v1/admin, and a user key cannot.
        #expect(try await harness.deliveries(of: global.id, key: nil).count == 1)
        let adminRetry = try await harness.send(
            "POST", "/v1/admin/deliveries/\(globalDelivery.uuidString.lowercased())/retry", token: DispatcherHarness.adminToken)
        #expect(adminRetry.status == 202)
        let userOnAdmin = try await harness.send(
            "GET", "/v1/admin/webhooks/\(global.id.uuidString.lowercased())/deliveries", token: owner.key)
        #expect(userOnAdmin.status == 403)
    }

    @Test func theLogFiltersAndPages() async throws {
        let receiver = try WebhookReceiver()
        let harness = try DispatcherHarness()
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/hook"))
        for _ in 0..<5 { try harness.enqueue(user: user.id) }
        try harness.enqueue(user: user.id, type: "watch.failing")
        #expect(try await eventually { receiver.requests().count == 6 })
        // Received is not yet recorded: wait for the results to be written.
        #expect(try await eventually { try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status <> 'succeeded'") == 0 })

        var seen: [String] = []
        var cursor: String?
        repeat {
            let query = "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let response = try await harness.send(
                "GET", "/v1/webhooks/\(webhook.id.uuidString.lowercased())/deliveries\(query)", token: user.key)
            let object = try response.object()
            seen += try #require(object["data"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            cursor = object["next_cursor"] as? String
        } while cursor != nil
        #expect(seen.count == 6 && Set(seen).count == 6)

        #expect(try await harness.deliveries(of: webhook.id, key: user.key, query: "?event_type=watch.failing").count == 1)
        #expect(try await harness.deliveries(of: webhook.id, key: user.key, query: "?status=pending").isEmpty)
        #expect(try await harness.deliveries(of: webhook.id, key: user.key, query: "?since=2999-01-01T00:00:00Z").isEmpty)
        #expect(try await harness.deliveries(of: webhook.id, key: user.key, query: "?until=2999-01-01T00:00:00Z").count == 6)
        for bad in ["?status=lost", "?event_type=nope", "?since=yesterday"] {
            let response = try await harness.send(
                "GET", "/v1/webhooks/\(webhook.id.uuidString.lowercased())/deliveries\(bad)", token: user.key)
            #expect(response.status == 400, "\(bad)")
        }
    }

    @Test func oldEventsArePrunedButNeverWhilePending() async throws {
        let harness = try DispatcherHarness()
        defer { harness.stop() }
        let user = try await harness.createUser()
        _ = try await harness.createWebhook(key: user.key, url: "http://127.0.0.1:9/never")
        let old = try harness.enqueue(user: user.id)
        let done = try harness.enqueue(user: user.id, type: "watch.failing")
        _ = try harness.database.query("UPDATE events SET created_at = now() - interval '40 days' WHERE id IN (\(old), \(done))")
        _ = try harness.database.query(
            """
            UPDATE deliveries SET status = 'succeeded', completed_at = now(), lease_owner = NULL, lease_until = NULL
            WHERE event_id = \(done)
            """)

        let pruned = try DeliveryStore(database: harness.database).pruneEvents(olderThan: .seconds(30 * 86_400))

        #expect(pruned >= 1)
        #expect(try harness.scalar("SELECT count(*)::int AS n FROM events WHERE id = \(done)") == 0)
        let oldStillPending = try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE event_id = \(old) AND status = 'pending'")
        #expect(try harness.scalar("SELECT count(*)::int AS n FROM events WHERE id = \(old)") == (oldStillPending > 0 ? 1 : 0))
    }
}
