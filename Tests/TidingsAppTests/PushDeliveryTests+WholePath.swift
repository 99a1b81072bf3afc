import Foundation
import Testing
import TidingsApp
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// Direct push from the page on: a real origin whose text changes, checked
/// through the API, and what each kind of push carries; the sync budget;
/// the push log's pages; dead tokens announced to webhooks.
extension PushDeliveryTests {
    private static func json(_ text: String?) throws -> [String: Any] {
        let text = try #require(text)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private static func check(_ fixture: Fixture) async throws -> [String: Any] {
        let response = try await fixture.server.send("POST", "/v1/watches/\(fixture.watch)/check", token: fixture.key)
        #expect(response.status == 200, "\(response.text)")
        return try response.object()
    }

    @Test(.timeLimit(.minutes(5)))
    func aPageChangeSendsTheCountAndASyncPushNamingTheChange() async throws {
        let page = AdaptiveMutex("Version 1.0")
        let origin = try TestOriginServer { _ in .text(page.withLock { $0 }) }
        defer { origin.stop() }
        let fixture = try await Self.start(notify: "sync", url: "\(origin.baseURL)/changelog") { $0.allowPrivateTargets = true }
        defer { fixture.stop() }

        #expect(try await Self.check(fixture)["result"] as? String == "baseline")
        page.withLock { $0 = "Version 2.0" }
        let changed = try await Self.check(fixture)
        #expect(changed["result"] as? String == "changed")
        let changeID = try #require(changed["change_id"] as? String)

        // iOS: the new count, and a background push naming the change.
        #expect(try await eventually { try await fixture.badges(fixture.iosToken) == [1] })
        #expect(try await eventually { try await fixture.received(fixture.iosToken).contains { $0.push_type == "background" } })
        let sync = try #require(try await fixture.received(fixture.iosToken).first { $0.push_type == "background" })
        #expect(sync.status == 200 && sync.priority == "5" && sync.topic == fixture.mock.startup.topic && sync.collapse_id == nil)
        let payload = try Self.json(sync.payload)
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["content-available"] as? Int == 1 && aps.count == 1, "only content-available: \(aps)")
        let ids = try #require(payload["tidings"] as? [String: Any])
        #expect(
            ids["kind"] as? String == "sync" && ids["watch_id"] as? String == fixture.watch && ids["change_id"] as? String == changeID,
            "\(ids) against \(changed)")
        // It carries the feed position of that newest change: an app whose
        // stored cursor is there already has everything.
        let feed = try await fixture.server.send("GET", "/v1/changes", token: fixture.key).items()
        let cursor = try #require(feed.last { $0["id"] as? String == changeID }?["cursor"] as? String)
        #expect(ids["cursor"] as? String == cursor, "\(ids) against the feed's \(cursor)")

        // Android: data messages at normal priority, the count and the sync.
        #expect(try await eventually { try await fixture.received(fixture.androidToken).count == 2 })
        let messages = try await fixture.received(fixture.androidToken).map { try Self.json($0.body)["message"] as? [String: Any] ?? [:] }
        let syncMessage = try #require(messages.first { ($0["data"] as? [String: String])?["tidings_kind"] == "sync" })
        #expect(syncMessage["notification"] == nil, "a data message, not a notification")
        #expect((syncMessage["android"] as? [String: Any])?["priority"] as? String == "normal")
        let data = try #require(syncMessage["data"] as? [String: String])
        #expect(data["watch_id"] == fixture.watch && data["change_id"] == changeID && data["cursor"] == cursor)
        let badgeMessage = try #require(messages.first { ($0["data"] as? [String: String])?["tidings_kind"] == "badge" })
        #expect((badgeMessage["data"] as? [String: String])?["badge"] == "1")
        #expect((badgeMessage["android"] as? [String: Any])?["priority"] as? String == "normal")

        // The push log names both kinds, sent (once Tidings has recorded
        // the answers: the mock counts a push as it arrives).
        let devices = try await fixture.server.send("GET", "/v1/devices", token: fixture.key).items()
        let ios = try #require(devices.first { $0["platform"] as? String == "ios" }?["id"] as? String)
        #expect(
            try await eventually {
                try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes", token: fixture.key).items()
                    .allSatisfy { $0["status"] as? String == "sent" }
            })
        let log = try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes", token: fixture.key).items()
        #expect(Set(log.compactMap { $0["kind"] as? String }) == ["badge", "sync"], "\(log)")
    }

    /// One sync push per 3 s: two more changes within the window wait, and
    /// one push carrying the newest of them goes out when it frees.
    @Test(.timeLimit(.minutes(5)))
    func pastTheSyncBudgetTheNewestChangeWaitsAndThenGoesOut() async throws {
        let fixture = try await Self.start(notify: "sync") { $0.pushSyncBudget = RatePolicy(count: 1, per: .seconds(3)) }
        defer { fixture.stop() }
        func syncPushes() async throws -> [MockStats.Request] {
            try await fixture.received(fixture.iosToken).filter { $0.push_type == "background" }
        }
        func syncs() async throws -> [String] {
            try await syncPushes().map { request in
                try #require(try Self.json(request.payload)["tidings"] as? [String: Any])["change_id"] as? String ?? ""
            }
        }
        try fixture.server.recordChange(watchID: fixture.watch, text: "v0")
        let first = try #require(try fixture.server.recordChange(watchID: fixture.watch, text: "v1"))
        #expect(try await eventually { try await syncs() == [first] })

        _ = try #require(try fixture.server.recordChange(watchID: fixture.watch, text: "v2"))
        let newest = try #require(try fixture.server.recordChange(watchID: fixture.watch, text: "v3"))
        // The counts go out at once; the sync waits for the window.
        #expect(try await eventually { try await fixture.badges(fixture.iosToken).last == 3 })
        #expect(try await eventually { try await syncs().count == 2 })
        #expect(try await syncs() == [first, newest], "one waiting push, carrying the newest change")
        // Judged by the mock's own arrival times, not by when this test
        // happened to look: a loaded machine can show the first push late.
        let arrivals = try await syncPushes().compactMap(\.at)
        try #require(arrivals.count == 2)
        #expect(
            arrivals[1] - arrivals[0] >= 2.9, "a second sync push \(arrivals[1] - arrivals[0]) s after the first, inside the budget's 3 s")
        // Nothing else waits. The mock records a push as it arrives, before
        // Tidings records the answer, so the row may still be pending for a
        // moment; and no third sync push follows in the next window.
        #expect(
            try await eventually {
                try fixture.server.application.database.query(
                    "SELECT count(*) AS n FROM pushes WHERE kind = 'sync' AND status = 'pending'"
                ).single().decode("n", as: Int.self) == 0
            })
        // A negative check: a fixed wait past the 3 s window.
        try await Task.sleep(for: .seconds(3.5))
        #expect(try await syncs() == [first, newest])
    }

    @Test(.timeLimit(.minutes(5)))
    func thePushLogPagesWithACursorOldestFirst() async throws {
        let fixture = try await Self.start(coalesce: .zero)
        defer { fixture.stop() }
        try fixture.server.recordChange(watchID: fixture.watch, text: "v0")
        for version in 1...5 {
            try fixture.server.recordChange(watchID: fixture.watch, text: "v\(version)")
            #expect(try await eventually { try await fixture.badges(fixture.iosToken).count == version })
        }
        let devices = try await fixture.server.send("GET", "/v1/devices", token: fixture.key).items()
        let ios = try #require(devices.first { $0["platform"] as? String == "ios" }?["id"] as? String)
        let whole = try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes", token: fixture.key).items()
        #expect(whole.count == 5)

        var paged: [[String: Any]] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = cursor.map { "&cursor=\($0)" } ?? ""
            let page = try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes?limit=2\(query)", token: fixture.key)
            #expect(page.status == 200, "\(page.text)")
            let object = try page.object()
            let items = try #require(object["data"] as? [[String: Any]])
            #expect(items.count <= 2)
            paged += items
            cursor = object["next_cursor"] as? String
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(paged.compactMap { $0["id"] as? String } == whole.compactMap { $0["id"] as? String })
        // Oldest first: the first count sent comes first.
        #expect(paged.first?["badge"] as? Int == 1 && paged.last?["badge"] as? Int == 5, "\(paged)")

        let bad = try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes?cursor=not-a-cursor", token: fixture.key)
        #expect(bad.status == 400 && bad.isProblem && bad.text.contains("cursor"), "\(bad.text)")
    }

    /// APNs 410 and FCM UNREGISTERED through the dispatcher: both devices
    /// go, and a webhook subscribed to device.invalidated hears of each.
    @Test(.timeLimit(.minutes(5)))
    func deadTokensOnBothServicesAreAnnouncedToWebhooks() async throws {
        let bodies = AdaptiveMutex<[[UInt8]]>([])
        let receiver = try TestOriginServer { request in
            bodies.withLock { $0.append(request.body) }
            return .text("ok")
        }
        defer { receiver.stop() }
        let fixture = try await Self.start { $0.allowPrivateTargets = true }
        defer { fixture.stop() }
        let webhook = try await fixture.server.send(
            "POST", "/v1/webhooks", token: fixture.key,
            json: [
                "url": "\(receiver.baseURL)/hook", "event_types": ["device.invalidated"],
            ])
        #expect(webhook.status == 201, "\(webhook.text)")
        try await fixture.mock.script(token: fixture.iosToken, [["status": 410, "reason": "Unregistered"]])
        try await fixture.mock.script(
            token: fixture.androidToken, [["status": 404, "fcm_error": ["status": "NOT_FOUND", "errorCode": "UNREGISTERED"]]])

        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        #expect(try await eventually { bodies.withLock { $0.count } == 2 })
        let events = try bodies.withLock { $0 }.map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        #expect(events.allSatisfy { $0["type"] as? String == "device.invalidated" }, "\(events)")
        let data = events.compactMap { $0["data"] as? [String: Any] }
        #expect(Set(data.compactMap { $0["platform"] as? String }) == ["ios", "android"])
        #expect(Set(data.compactMap { $0["push_token"] as? String }) == [fixture.iosToken, fixture.androidToken])
        #expect(data.allSatisfy { ($0["reason"] as? String)?.isEmpty == false }, "\(data)")
        let devices = try await fixture.server.send("GET", "/v1/devices", token: fixture.key).items()
        #expect(devices.isEmpty)
    }

    /// Three attempts (the test's schedule has two retries), each answered
    /// 503: the push fails with the reason, and the metric says so.
    @Test(.timeLimit(.minutes(5)))
    func aPushOutOfAttemptsFailsAndCountsAsFailed() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let busy: [String: Any] = ["status": 503, "reason": "ServiceUnavailable"]
        try await fixture.mock.script(token: fixture.iosToken, [busy, busy, busy])
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        let devices = try await fixture.server.send("GET", "/v1/devices", token: fixture.key).items()
        let ios = try #require(devices.first { $0["platform"] as? String == "ios" }?["id"] as? String)
        #expect(
            try await eventually {
                try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes", token: fixture.key).items().first?["status"] as? String
                    == "failed"
            })
        let push = try #require(try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes", token: fixture.key).items().first)
        #expect(push["attempt_count"] as? Int == 3)
        #expect((push["reason"] as? String)?.contains("gave up after 3 attempts") == true, "\(push)")
        let metrics = try await fixture.server.send("GET", "/metrics").text
        #expect(metrics.contains(#"tidings_pushes_total{kind="badge",outcome="retry",platform="apns"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"tidings_pushes_total{kind="badge",outcome="failed",platform="apns"} 1"#))
    }
}
