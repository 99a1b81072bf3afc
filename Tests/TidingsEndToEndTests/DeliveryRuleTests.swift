import Foundation
import Testing
import TidingsApp
import TidingsPostgres
import TidingsTestSupport

/// Success, retries, Retry-After, redirects, 410, timeouts and the
/// per-webhook cap, against a real receiver.
@Suite struct DeliveryRuleTests {
    @Test func failuresRetryOnTheScheduleHonouringRetryAfterThenFail() async throws {
        let receiver = try WebhookReceiver { _, previous in
            previous == 0
                ? .init(status: 503, headers: [("Retry-After", "2")], body: "busy")
                : .init(status: 500, body: String(repeating: "e", count: 20_000))
        }
        // A Retry-After is honoured up to the schedule's longest step (2.5 s here).
        let harness = try DispatcherHarness { $0.webhookRetrySchedule = [.zero, .milliseconds(300), .milliseconds(2500)] }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/flaky"))
        let event = try harness.enqueue(user: user.id)

        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'failed'") == 1
            })
        let times = receiver.requests("/flaky").map(\.receivedAt)
        #expect(times.count == 3)
        // Retry-After (2 s) wins over the 300 ms step; the next step is the schedule's (2.5 s ±20 %).
        #expect(times[1].timeIntervalSince(times[0]) >= 1.9)
        #expect(times[2].timeIntervalSince(times[1]) >= 1.9)
        #expect(Set(receiver.requests("/flaky").map(\.webhookID)) == [event.uuidString.lowercased()])

        let log = try await harness.deliveries(of: webhook.id, key: user.key)
        #expect(log.count == 1)
        #expect(log[0]["status"] as? String == "failed")
        #expect(log[0]["attempt_count"] as? Int == 3)
        let attempts = try #require(log[0]["attempts"] as? [[String: Any]])
        #expect(attempts.map { $0["status_code"] as? Int } == [503, 500, 500])
        #expect(attempts[0]["response_body"] as? String == "busy")
        #expect(attempts[1]["response_truncated"] as? Bool == true)
        // The attempt keeps a 16 KiB snippet; a listing shows its first 1,024 characters.
        #expect((attempts[1]["response_body"] as? String)?.count == 1024)
        #expect(try harness.scalar("SELECT max(octet_length(response_body))::int AS n FROM delivery_attempts") == 16_384)
        // Failed deliveries are kept.
        #expect(try harness.scalar("SELECT count(*)::int AS n FROM events") == 1)
    }

    @Test func redirectsAreFailuresAndAreNotFollowed() async throws {
        let receiver = try WebhookReceiver { path, _ in
            path == "/moved" ? .init(status: 302, headers: [("Location", "/target")]) : .init()
        }
        let harness = try DispatcherHarness { $0.webhookRetrySchedule = [.zero] }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/moved"))
        try harness.enqueue(user: user.id)

        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'failed'") == 1
            })
        #expect(receiver.requests("/moved").count == 1)
        #expect(receiver.requests("/target").isEmpty)
        let attempts = try #require(try await harness.deliveries(of: webhook.id, key: user.key).first?["attempts"] as? [[String: Any]])
        #expect(attempts.first?["status_code"] as? Int == 302)
        #expect(attempts.first?["error"] as? String == "redirects are not followed")
    }

    @Test func goneDisablesTheWebhookAndTellsTheOwnersOtherWebhooks() async throws {
        let receiver = try WebhookReceiver { path, _ in path == "/gone" ? .init(status: 410) : .init() }
        let harness = try DispatcherHarness()
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let gone = try await harness.createWebhook(
            key: user.key, url: receiver.url("/gone"), eventTypes: ["watch.changed", "webhook.disabled"])
        _ = try await harness.createWebhook(key: user.key, url: receiver.url("/other"), eventTypes: ["webhook.disabled"])
        try harness.enqueue(user: user.id)

        #expect(try await eventually { receiver.requests("/other").count == 1 })
        let notice = try #require(receiver.requests("/other").first)
        #expect(notice.json["type"] as? String == "webhook.disabled")
        let data = try #require(notice.json["data"] as? [String: Any])
        #expect(data["webhook_id"] as? String == gone.id.uuidString.lowercased())
        #expect(data["reason"] as? String == "the receiver answered 410 Gone")

        let shown = try await harness.send("GET", "/v1/webhooks/\(gone.id.uuidString.lowercased())", token: user.key).object()
        #expect(shown["enabled"] as? Bool == false)
        #expect(shown["disabled_reason"] as? String == "the receiver answered 410 Gone")
        // Only one attempt: 410 is final, and the disabled webhook got no notice of itself.
        #expect(receiver.requests("/gone").count == 1)
    }

    @Test func aWebhookFailingLongerThanTheLimitIsDisabled() async throws {
        let receiver = try WebhookReceiver { path, _ in path == "/down" ? .init(status: 500) : .init() }
        let harness = try DispatcherHarness {
            $0.webhookRetrySchedule = [.zero] + Array(repeating: .milliseconds(400), count: 20)
            $0.webhookDisableAfter = .seconds(1)
        }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let down = try await harness.createWebhook(key: user.key, url: receiver.url("/down"), eventTypes: ["watch.changed"])
        _ = try await harness.createWebhook(key: user.key, url: receiver.url("/notices"), eventTypes: ["webhook.disabled"])
        try harness.enqueue(user: user.id)

        #expect(try await eventually { receiver.requests("/notices").count == 1 })
        let data = try #require(receiver.requests("/notices")[0].json["data"] as? [String: Any])
        #expect(data["webhook_id"] as? String == down.id.uuidString.lowercased())
        #expect((data["reason"] as? String)?.hasPrefix("every delivery failed since ") == true)
        // Disabling failed what was still pending, and nothing more is sent.
        #expect(try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = \(down.id) AND status = 'pending'") == 0)
        let attempts = receiver.requests("/down").count
        #expect(attempts >= 2)
        // A negative check: nothing to wait for, so a fixed second.
        try await Task.sleep(for: .seconds(1))
        #expect(receiver.requests("/down").count == attempts)
    }

    @Test func aSlowReceiverTimesOutAndIsRetried() async throws {
        let receiver = try WebhookReceiver { _, previous in previous == 0 ? .init(delay: .seconds(3)) : .init() }
        let harness = try DispatcherHarness {
            $0.webhookTimeout = .seconds(1)
            $0.webhookRetrySchedule = [.zero, .milliseconds(200)]
        }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/slow"))
        try harness.enqueue(user: user.id)

        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded'") == 1
            })
        let attempts = try #require(try await harness.deliveries(of: webhook.id, key: user.key).first?["attempts"] as? [[String: Any]])
        #expect(attempts.count == 2)
        #expect(attempts[0]["status_code"] is NSNull)
        #expect((attempts[0]["error"] as? String)?.hasPrefix("timeout") == true)
        #expect((attempts[0]["duration_ms"] as? Int).map { $0 >= 900 && $0 < 2500 } == true)
        #expect(attempts[1]["status_code"] as? Int == 204)
        let ids = receiver.requests("/slow").map(\.webhookID)
        #expect(ids.count == 2 && ids[0] == ids[1])
    }

    @Test func thePerWebhookCapHoldsAndASlowReceiverDoesNotStarveTheOthers() async throws {
        // The receiver's handlers block, each on its own connection's
        // thread, so slow answers hold up only their own connections.
        let receiver = try WebhookReceiver { path, _ in
            // 6 s for the slow one in all, so that a late wake below
            // still finds it unfinished.
            path == "/slow" ? .init(delay: .seconds(1)) : .init()
        }
        let harness = try DispatcherHarness { $0.webhookConcurrency = 2 }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        _ = try await harness.createWebhook(key: user.key, url: receiver.url("/slow"))
        _ = try await harness.createWebhook(key: user.key, url: receiver.url("/fast"))
        try harness.enqueueBurst(user: user.id, count: 12)

        #expect(try await eventually { receiver.requests("/fast").count == 12 })
        // The fast receiver had everything long before the slow one (12 x 1 s / 2).
        #expect(receiver.requests("/slow").count < 12)
        #expect(try await eventually { receiver.requests("/slow").count == 12 })
        #expect(receiver.mostConcurrent("/slow") == 2)
        #expect(receiver.mostConcurrent("/fast") <= 2)
    }

    @Test func aDispatcherQueuesUpToEightTimesTheCapMoreWithALongerLease() async throws {
        // Each answer takes most of the timeout, so the leases below are
        // still held when a late-woken test reads them.
        let receiver = try WebhookReceiver { _, _ in .init(delay: .milliseconds(3500)) }
        let harness = try DispatcherHarness {
            $0.webhookConcurrency = 1
            $0.webhookTimeout = .seconds(4)
        }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        _ = try await harness.createWebhook(key: user.key, url: receiver.url("/slow"))
        try harness.enqueueBurst(user: user.id, count: 4)

        #expect(try await eventually { receiver.requests("/slow").count == 1 })
        // One in flight (lease: 4 s timeout + 5 s margin), the other three
        // queued behind it (room for eight) with a lease eight timeouts
        // longer: the wait of the last place in a full queue.
        let leases = try harness.database.query(
            """
            SELECT round(extract(epoch FROM lease_until - updated_at))::int AS seconds
            FROM deliveries WHERE lease_owner IS NOT NULL ORDER BY 1
            """
        ).map { try $0.decode("seconds", as: Int.self) }
        #expect(leases == [9, 41, 41, 41])
        #expect(
            try await eventually(timeout: .seconds(40)) {
                try harness.scalar("SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded'") == 4
            })
        #expect(receiver.mostConcurrent("/slow") == 1)
    }

    @Test func theSSRFGuardRefusesPrivateAddressesAtConnectTime() async throws {
        let receiver = try WebhookReceiver()
        let harness = try DispatcherHarness {
            $0.allowPrivateTargets = false
            $0.webhookRetrySchedule = [.zero]
        }
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        // Refused at creation ...
        let refused = try await harness.send("POST", "/v1/webhooks", token: user.key, json: ["url": receiver.url("/hook")])
        #expect(refused.status == 422)
        // ... and at connect time, for a URL that got in another way (DNS can change after creation).
        _ = try harness.database.query(
            """
            INSERT INTO webhooks (user_id, url, event_types, secret)
            VALUES (\(user.id), \(receiver.url("/hook")), '{watch.changed}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')
            """)
        try harness.enqueue(user: user.id)

        #expect(
            try await eventually {
                try harness.scalar("SELECT count(*)::int AS n FROM delivery_attempts WHERE error LIKE 'blocked_address%'") == 1
            })
        // What the owner can read names neither the address nor its range.
        #expect(try harness.scalar("SELECT count(*)::int AS n FROM delivery_attempts WHERE error ~ '127\\.0\\.0|loopback'") == 0)
        #expect(receiver.requests().isEmpty)
    }
}
