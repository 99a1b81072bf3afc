import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// What `queue_pushes` (migration 0020) writes into the push outbox when
/// counts and watches change: which device gets what, superseding, the sync
/// budget, and nothing at all while no push app exists.
@Suite struct PushQueueTests {
    struct Setup {
        let server: APITestServer
        let key: String
        let watch: String
        /// ios with the app's id, ios without app_id, android (no FCM app), web.
        let devices: (ios: String, iosNoAppID: String, android: String, web: String)
    }

    /// The server's own dispatcher sends nothing: what is queued stays put.
    static func setup(pushApp: Bool = true, notify: String = "badge") async throws -> Setup {
        let server = try APITestServer { $0.pushMaxInFlight = 0 }
        if pushApp {
            let app = try await server.send("POST", "/v1/push-apps", token: APITestServer.adminToken, json: PushAppsAPITests.apns())
            #expect(app.status == 201, "\(app.text)")
        }
        let (_, key) = try await server.createUser()
        func device(_ body: [String: Any]) async throws -> String {
            let response = try await server.send("POST", "/v1/devices", token: key, json: body)
            #expect(response.status == 201, "\(response.text)")
            return try #require(try response.object()["id"] as? String)
        }
        let devices = (
            ios: try await device(["platform": "ios", "push_token": "aa11", "app_id": "com.example.app"]),
            iosNoAppID: try await device(["platform": "ios", "push_token": "bb22"]),
            android: try await device(["platform": "android", "push_token": "android-token-1"]),
            web: try await device([
                "platform": "web", "push_subscription": try WebPushTestKeys.subscription(endpoint: WebPushTestKeys.publicEndpoint()),
            ])
        )
        let watch = try await server.createWatch(token: key, ["url": APITestServer.publicURL, "name": "Release notes", "notify": notify])
        return Setup(server: server, key: key, watch: try #require(watch["id"] as? String), devices: devices)
    }

    /// (kind, status, badge, reason) of every push of a device, oldest first.
    static func pushes(_ setup: Setup, _ device: String) async throws -> [[String: Any]] {
        let response = try await setup.server.send("GET", "/v1/devices/\(device)/pushes", token: setup.key)
        #expect(response.status == 200, "\(response.text)")
        return try response.items()
    }

    @Test func everyDeviceGetsTheLatestCountOrSaysWhyNot() async throws {
        let setup = try await Self.setup()
        defer { setup.server.stop() }
        try #require(try setup.server.recordChange(watchID: setup.watch, text: "v1") == nil) // baseline
        try #require(try setup.server.recordChange(watchID: setup.watch, text: "v2") != nil)
        try #require(try setup.server.recordChange(watchID: setup.watch, text: "v3") != nil)

        // Both iOS devices (one by app_id, one as the only APNs app): one
        // pending badge push each, carrying the latest count.
        for device in [setup.devices.ios, setup.devices.iosNoAppID] {
            let log = try await Self.pushes(setup, device)
            #expect(log.count == 1, "\(log)")
            #expect(log.first?["kind"] as? String == "badge" && log.first?["status"] as? String == "pending")
            #expect(log.first?["badge"] as? Int == 2)
            #expect(log.first?["next_attempt_at"] as? String != nil)
        }
        let android = try await Self.pushes(setup, setup.devices.android)
        #expect(android.count == 1 && android.first?["status"] as? String == "skipped", "\(android)")
        #expect((android.first?["reason"] as? String)?.contains("not exactly one FCM push app") == true)
        #expect(android.first?["badge"] as? Int == 2, "the skipped row is kept current")
        let web = try await Self.pushes(setup, setup.devices.web)
        #expect(web.first?["reason"] as? String == "web push is off: TIDINGS_VAPID_PRIVATE_KEY is not set")

        // Reading lowers the count: the pending push takes the new value.
        let read = try await setup.server.send("POST", "/v1/badge/read-all", token: setup.key)
        #expect(read.status == 200, "\(read.text)")
        let after = try await Self.pushes(setup, setup.devices.ios)
        #expect(after.count == 1 && after.first?["badge"] as? Int == 0, "\(after)")

        // Another user cannot read the log.
        let (_, other) = try await setup.server.createUser()
        #expect(try await setup.server.send("GET", "/v1/devices/\(setup.devices.ios)/pushes", token: other).status == 404)
    }

    @Test func aDeviceWithAnUnknownAppIDIsSkippedWithTheReason() async throws {
        let setup = try await Self.setup()
        defer { setup.server.stop() }
        let response = try await setup.server.send(
            "POST", "/v1/devices", token: setup.key,
            json: [
                "platform": "ios", "push_token": "cc33", "app_id": "com.example.other",
            ])
        let device = try #require(try response.object()["id"] as? String)
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        try setup.server.recordChange(watchID: setup.watch, text: "v2")
        try setup.server.recordChange(watchID: setup.watch, text: "v3")
        let log = try await Self.pushes(setup, device)
        #expect(log.count == 1, "one skipped row per device, refreshed: \(log)")
        #expect(log.first?["reason"] as? String == "no APNs push app has app_id com.example.other")
    }

    /// With two APNs apps, a device goes through the app of its app_id;
    /// one without app_id can no longer be matched and says so.
    @Test func withTwoAppsOfAServiceTheAppIDDecides() async throws {
        let setup = try await Self.setup()
        defer { setup.server.stop() }
        let second = try await setup.server.send(
            "POST", "/v1/push-apps", token: APITestServer.adminToken, json: PushAppsAPITests.apns("com.example.second"))
        #expect(second.status == 201, "\(second.text)")
        let secondApp = try #require(try second.object()["id"] as? String)
        let response = try await setup.server.send(
            "POST", "/v1/devices", token: setup.key,
            json: [
                "platform": "ios", "push_token": "dd44", "app_id": "com.example.second",
            ])
        let secondDevice = try #require(try response.object()["id"] as? String)
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        try setup.server.recordChange(watchID: setup.watch, text: "v2")

        let apps = try setup.server.application.database.query(
            """
            SELECT device_id::text AS device, push_app_id::text AS app FROM pushes WHERE status <> 'skipped' ORDER BY device_id
            """
        ).map { (try $0.decode("device", as: String.self), try $0.decode("app", as: String.self)) }
        let firstApp = try setup.server.application.database.query("SELECT id::text AS id FROM push_apps WHERE app_id = 'com.example.app'")[
            0
        ]
        .decode("id", as: String.self)
        #expect(Dictionary(uniqueKeysWithValues: apps) == [setup.devices.ios: firstApp, secondDevice: secondApp], "\(apps)")
        let unmatched = try await Self.pushes(setup, setup.devices.iosNoAppID)
        #expect(unmatched.count == 1 && unmatched.first?["status"] as? String == "skipped", "\(unmatched)")
        #expect(unmatched.first?["reason"] as? String == "the device has no app_id and there is not exactly one APNs push app")
    }

    @Test func withoutPushAppsNothingIsQueued() async throws {
        let setup = try await Self.setup(pushApp: false, notify: "alert")
        defer { setup.server.stop() }
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        try setup.server.recordChange(watchID: setup.watch, text: "v2")
        let rows = try setup.server.application.database.query("SELECT count(*) AS n FROM pushes").single().decode("n", as: Int.self)
        #expect(rows == 0)
    }

    @Test func alertsCarryTheWatchNameTheChangeAndTheBadge() async throws {
        let setup = try await Self.setup(notify: "alert")
        defer { setup.server.stop() }
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        let change = try #require(try setup.server.recordChange(watchID: setup.watch, text: "Version 2.0 is out"))
        let row = try setup.server.application.database.query(
            """
            SELECT title, body, badge, change_id::text AS change_id, watch_id::text AS watch_id FROM pushes
            WHERE device_id = \(setup.devices.ios)::uuid AND kind = 'alert'
            """
        ).single()
        #expect(try row.decode("title", as: String.self) == "Release notes")
        #expect(try row.decode("body", as: String.self) == "Version 2.0 is out")
        #expect(try row.decode("badge", as: Int.self) == 1)
        #expect(try row.decode("change_id", as: String.self) == change)
        #expect(try row.decode("watch_id", as: String.self) == setup.watch)
        let kinds = try await Self.pushes(setup, setup.devices.ios).compactMap { $0["kind"] as? String }.sorted()
        #expect(kinds == ["alert", "badge"])
    }

    @Test func syncPushesArePerDeviceAndWaitPastTheBudget() async throws {
        let setup = try await Self.setup(notify: "sync")
        defer { setup.server.stop() }
        let database = setup.server.application.database
        // Three syncs went out in the last hour: the budget (3/1h) is spent.
        for minutes in [50, 30, 10] {
            _ = try database.query(
                """
                INSERT INTO pushes (device_id, user_id, push_app_id, kind, status, completed_at, created_at)
                SELECT d.id, d.user_id, (SELECT id FROM push_apps), 'sync', 'sent', now() - \(minutes) * interval '1 minute', now()
                FROM devices d WHERE d.id = \(setup.devices.ios)::uuid
                """)
        }
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        try setup.server.recordChange(watchID: setup.watch, text: "v2")
        let last = try #require(try setup.server.recordChange(watchID: setup.watch, text: "v3"))
        let pending = try database.query(
            """
            SELECT change_id::text AS change_id,
                   extract(epoch FROM next_attempt_at - now())::float8 AS wait
            FROM pushes WHERE device_id = \(setup.devices.ios)::uuid AND kind = 'sync' AND status = 'pending'
            """)
        #expect(pending.count == 1, "one pending sync per device, carrying the latest change")
        let wait = try pending.single().decode("wait", as: Double.self)
        // The oldest of the three (50 minutes ago) leaves the hour in ~10 minutes.
        #expect((9 * 60.0...11 * 60.0).contains(wait), "waits \(wait) s")
        #expect(try pending.single().decode("change_id", as: String.self) == last)
        // The device without the budget spent gets its sync now.
        let other = try database.query(
            """
            SELECT extract(epoch FROM next_attempt_at - now())::float8 AS wait FROM pushes
            WHERE device_id = \(setup.devices.iosNoAppID)::uuid AND kind = 'sync' AND status = 'pending'
            """
        ).single().decode("wait", as: Double.self)
        // Not held by the budget (the other waits ~600 s): due now.
        #expect(other <= 0)
    }

    /// The push dispatcher's side of the outbox, driven by hand for the iOS
    /// device (the server's own dispatcher sends nothing here).
    struct HandDispatcher {
        let setup: Setup
        let store: PushStore
        let device: UUID

        init(_ setup: Setup) throws {
            self.setup = setup
            store = PushStore(database: setup.server.application.database)
            device = try #require(UUID(uuidString: setup.devices.ios))
        }

        func makeDue() throws {
            _ = try setup.server.application.database.query("UPDATE pushes SET next_attempt_at = now() WHERE status = 'pending'")
        }

        func claim() throws -> [ClaimedPush] {
            try store.claim(owner: "test-owner", limit: 100, leaseDuration: .seconds(60)).filter { $0.deviceID == device }
        }

        func complete(_ pushes: [ClaimedPush], _ outcome: PushAttemptResult.Outcome) throws {
            try store.complete(pushes.map { PushAttemptResult(pushID: $0.id, deviceID: device, outcome: outcome) }, owner: "test-owner")
        }

        /// (status, badge) of the device's badge pushes in queue order.
        func badgePushes() throws -> [(status: String, badge: Int)] {
            try setup.server.application.database.query(
                """
                SELECT status, badge FROM pushes WHERE device_id = \(device) AND kind = 'badge' ORDER BY queued_seq
                """
            ).map { (try $0.decode("status", as: String.self), try $0.decode("badge", as: Int.self)) }
        }
    }

    /// A count queued while an older one was in flight is a second pending
    /// row. If the older attempt's completion missed it (not yet committed)
    /// and left the older one pending for a retry, the older count must
    /// never go out after the newer: the claim supersedes it.
    @Test func anOlderCountLeftPendingIsSupersededNotSentAfterANewerOne() async throws {
        let setup = try await Self.setup()
        defer { setup.server.stop() }
        let dispatcher = try HandDispatcher(setup)
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        try setup.server.recordChange(watchID: setup.watch, text: "v2")
        try dispatcher.makeDue()
        let older = try #require(try dispatcher.claim().first)
        #expect(older.badge == 1)
        try setup.server.recordChange(watchID: setup.watch, text: "v3") // count 2, while 1 is in flight
        // The completion that missed the newer row: back to pending.
        _ = try setup.server.application.database.query(
            """
            UPDATE pushes SET lease_owner = NULL, lease_until = NULL, attempt_count = 1 WHERE id = \(older.id)
            """)
        try dispatcher.makeDue()
        let claimed = try dispatcher.claim()
        #expect(claimed.map(\.badge) == [2], "only the newer count is sent")
        #expect(try dispatcher.badgePushes().map(\.status) == ["superseded", "pending"])

        // Once the newer one is sent, the older one still never goes out.
        try dispatcher.complete(claimed, .sent(providerID: "x"))
        try dispatcher.makeDue()
        #expect(try dispatcher.claim().isEmpty)
    }

    /// An attempt that fails after a newer count was queued is superseded,
    /// not retried.
    @Test func aFailedAttemptWithANewerCountQueuedIsSuperseded() async throws {
        let setup = try await Self.setup()
        defer { setup.server.stop() }
        let dispatcher = try HandDispatcher(setup)
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        try setup.server.recordChange(watchID: setup.watch, text: "v2")
        try dispatcher.makeDue()
        let older = try #require(try dispatcher.claim().first)
        try setup.server.recordChange(watchID: setup.watch, text: "v3")
        try dispatcher.complete([older], .retry(after: .zero, reason: "HTTP 503"))
        let rows = try dispatcher.badgePushes()
        #expect(rows.map(\.status) == ["superseded", "pending"])
        #expect(rows.map(\.badge) == [1, 2])
    }

    /// The dispatcher sleeps until the next waiting push (a coalesced
    /// badge, a retry) is due. Pushes due already but held back, such as a
    /// device's newer count while its older one is in flight, must not hide
    /// it: the dispatcher would then sleep its whole poll interval.
    @Test func timeUntilNextDueLooksPastPushesDueAlready() async throws {
        let setup = try await Self.setup()
        defer { setup.server.stop() }
        let store = PushStore(database: setup.server.application.database)
        #expect(try store.timeUntilNextDue() == nil)
        try setup.server.recordChange(watchID: setup.watch, text: "v1")
        try setup.server.recordChange(watchID: setup.watch, text: "v2")
        func due(_ device: String, in seconds: Int) throws {
            _ = try setup.server.application.database.query(
                """
                UPDATE pushes SET next_attempt_at = now() + \(seconds) * interval '1 second'
                WHERE device_id = \(device)::uuid AND status = 'pending'
                """)
        }
        try due(setup.devices.ios, in: -1)
        try due(setup.devices.iosNoAppID, in: 30)
        let wait = try #require(try store.timeUntilNextDue())
        #expect(wait > .seconds(20) && wait <= .seconds(30), "\(wait)")
        try due(setup.devices.iosNoAppID, in: -1)
        #expect(try store.timeUntilNextDue() == nil, "nothing waits: both are the claim's")
    }

    @Test func aDeadTokenRemovesTheDeviceAndAnnouncesIt() async throws {
        let setup = try await Self.setup()
        defer { setup.server.stop() }
        let response = try await setup.server.send("POST", "/v1/devices/invalidations", token: setup.key, json: ["push_tokens": ["aa11"]])
        #expect(response.status == 200, "\(response.text)")
        let event = try setup.server.application.database.query(
            """
            SELECT data->>'device_id' AS device, data->>'reason' AS reason, data->>'push_token' AS token
            FROM events WHERE type = 'device.invalidated'
            """
        ).single()
        #expect(try event.decode("device", as: String.self) == setup.devices.ios)
        #expect(try event.decode("token", as: String.self) == "aa11")
        #expect(try event.decode("reason", as: String.self).contains("invalidations"))
        #expect(try await setup.server.send("GET", "/v1/devices/\(setup.devices.ios)/pushes", token: setup.key).status == 404)
    }
}
