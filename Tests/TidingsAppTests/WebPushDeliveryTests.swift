import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// Web Push from a change to the browser: a real Tidings on a real
/// PostgreSQL registers a subscription the mock push service made, and the
/// mock verifies each VAPID token and decrypts each message with the
/// subscription's private key (real TLS with a test CA, real libcurl).
@Suite(.serialized) struct WebPushDeliveryTests {
    static let vapidKey = try! P256KeyPair.generate()

    struct Fixture {
        let mock: MockPushServer
        let server: APITestServer
        let key: String
        let watch: String
        let subscription: MockPushServer.WebPushSubscription
        let device: String

        func stop() {
            server.stop()
            mock.stop()
        }

        /// What the mock received for the subscription, decrypted, oldest first.
        func received() async throws -> [MockStats.Request] {
            try await mock.stats().webPush.filter { $0.token == subscription.id }
        }

        func delivered() async throws -> [(request: MockStats.Request, payload: [String: Any])] {
            try await received().compactMap { request in
                guard request.status == 201, let text = request.payload,
                    let payload = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                else { return nil }
                return (request, payload)
            }
        }

        func log() async throws -> [[String: Any]] {
            try await server.send("GET", "/v1/devices/\(device)/pushes", token: key).items()
        }
    }

    /// A user with one web device (a subscription of the mock) and a watch.
    static func start(notify: String = "badge", configure: (inout Configuration) -> Void = { _ in }) async throws -> Fixture {
        let mock = try await MockPushServer.start()
        let server = try APITestServer { configuration in
            configuration.vapidPrivateKey = Self.vapidKey
            configuration.vapidSubject = "mailto:ops@example.com"
            configuration.pushCAFile = mock.caFile
            // The mock is on loopback: the SSRF guard must let it through.
            configuration.allowPrivateTargets = true
            configuration.pushRetrySchedule = [.milliseconds(200), .seconds(5)]
            configure(&configuration)
        }
        let (_, key) = try await server.createUser()
        let subscription = try await mock.createWebPushSubscription()
        let registered = try await server.send(
            "POST", "/v1/devices", token: key,
            json: [
                "platform": "web", "name": "Firefox", "push_subscription": subscription.json,
            ])
        #expect(registered.status == 201, "\(registered.text)")
        let device = try #require(try registered.object()["id"] as? String)
        let watch = try await server.createWatch(token: key, ["url": APITestServer.publicURL, "name": "Changelog", "notify": notify])
        return Fixture(
            mock: mock, server: server, key: key, watch: try #require(watch["id"] as? String), subscription: subscription, device: device
        )
    }

    @Test(.timeLimit(.minutes(5)))
    func aChangeReachesTheBrowserAsABadgeAndAnAlert() async throws {
        let fixture = try await Self.start(notify: "alert")
        defer { fixture.stop() }
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        let changeID = try #require(try fixture.server.recordChange(watchID: fixture.watch, text: "Release 2.0 is out"))

        #expect(try await eventually { try await fixture.delivered().count == 2 })
        let delivered = try await fixture.delivered()
        let badge = try #require(delivered.first { $0.payload["kind"] as? String == "badge" })
        #expect(badge.payload as NSDictionary == ["kind": "badge", "badge": 1] as NSDictionary)
        #expect(badge.request.topic == "tidings-badge" && badge.request.urgency == "low" && badge.request.ttl == "86400")
        let alert = try #require(delivered.first { $0.payload["kind"] as? String == "alert" })
        #expect(
            alert.payload as NSDictionary == [
                "kind": "alert", "badge": 1, "watch_id": fixture.watch, "change_id": changeID,
                "title": "Changelog", "body": "Release 2.0 is out",
            ] as NSDictionary)
        #expect(alert.request.topic == nil && alert.request.urgency == "high")
        // VAPID: aud is the endpoint's origin; one token for both pushes.
        #expect(
            delivered.allSatisfy { $0.request.claims?.aud == fixture.mock.baseURL && $0.request.claims?.sub == "mailto:ops@example.com" })
        #expect(Set(delivered.map(\.request.jwt)).count == 1)
        #expect(delivered.allSatisfy { $0.request.vapid_key == Self.vapidKey.publicKeyBase64URL })

        // The push log says they were sent.
        #expect(
            try await eventually {
                let log = try await fixture.log()
                return log.count == 2 && log.allSatisfy { $0["status"] as? String == "sent" }
            })
        let metrics = try await fixture.server.send("GET", "/metrics").text
        #expect(metrics.contains(#"tidings_pushes_total{kind="alert",outcome="delivered",platform="webpush"} 1"#), "\(metrics)")
    }

    @Test(.timeLimit(.minutes(5)))
    func aSyncPushNamesTheChangeAndItsCursor() async throws {
        let fixture = try await Self.start(notify: "sync")
        defer { fixture.stop() }
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        let changeID = try #require(try fixture.server.recordChange(watchID: fixture.watch, text: "v2"))

        #expect(try await eventually { try await fixture.delivered().contains { $0.payload["kind"] as? String == "sync" } })
        let sync = try #require(try await fixture.delivered().first { $0.payload["kind"] as? String == "sync" })
        let feed = try await fixture.server.send("GET", "/v1/changes", token: fixture.key).items()
        let cursor = try #require(feed.last { $0["id"] as? String == changeID }?["cursor"] as? String)
        #expect(
            sync.payload as NSDictionary == ["kind": "sync", "watch_id": fixture.watch, "change_id": changeID, "cursor": cursor]
                as NSDictionary)
        #expect(sync.request.urgency == "normal" && sync.request.topic == nil)
        #expect(
            try await eventually {
                let log = try await fixture.log()
                return Set(log.compactMap { $0["kind"] as? String }) == ["badge", "sync"]
                    && log.allSatisfy { $0["status"] as? String == "sent" }
            })
    }

    @Test(.timeLimit(.minutes(5)))
    func aGoneSubscriptionRemovesTheDeviceAndIsAnnounced() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        try await fixture.mock.script(subscription: fixture.subscription, [["status": 410, "body": "gone"]])
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        #expect(
            try await eventually {
                try await fixture.server.send("GET", "/v1/devices/\(fixture.device)", token: fixture.key).status == 404
            })
        let database = fixture.server.application.database
        let event = try database.query(
            """
            SELECT data->>'reason' AS reason, data->>'platform' AS platform, data->>'device_id' AS device
            FROM events WHERE type = 'device.invalidated'
            """
        ).single()
        #expect(try event.decode("reason", as: String.self) == "Web Push: the push service answered 410: the subscription is gone")
        #expect(try event.decode("platform", as: String.self) == "web" && event.decode("device", as: String.self) == fixture.device)
    }

    @Test(.timeLimit(.minutes(5)))
    func aThrottledPushIsRetriedAfterRetryAfter() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        try await fixture.mock.script(subscription: fixture.subscription, [["status": 429, "retry_after": "2"]])
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        #expect(try await eventually { try await fixture.delivered().count == 1 })
        let received = try await fixture.received()
        #expect(received.map(\.status) == [429, 201])
        let waited = try #require(received[1].at) - (try #require(received[0].at))
        #expect(waited >= 1.9, "the retry waited \(waited) s; Retry-After said 2")
        #expect(
            try await eventually {
                let log = try await fixture.log()
                return log.count == 1 && log[0]["status"] as? String == "sent" && log[0]["attempt_count"] as? Int == 2
            })
    }

    @Test(.timeLimit(.minutes(5)))
    func withoutAKeyWebDevicesAreSkippedAndThePublicKeyIsNotFound() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        // Another push app exists, so pushes are queued at all.
        let app = try await server.send("POST", "/v1/push-apps", token: APITestServer.adminToken, json: PushAppsAPITests.apns())
        #expect(app.status == 201, "\(app.text)")
        let (_, key) = try await server.createUser()
        let public_key = try await server.send("GET", "/v1/push/web/vapid-public-key", token: key)
        #expect(public_key.status == 404 && public_key.isProblem)
        let device = try await server.send(
            "POST", "/v1/devices", token: key,
            json: [
                "platform": "web", "push_subscription": try WebPushTestKeys.subscription(endpoint: WebPushTestKeys.publicEndpoint()),
            ])
        #expect(device.status == 201, "\(device.text)")
        let id = try #require(try device.object()["id"] as? String)
        let watch = try await server.createWatch(token: key, ["url": APITestServer.publicURL, "name": "News"])
        let watchID = try #require(watch["id"] as? String)
        try server.recordChange(watchID: watchID, text: "v1")
        try server.recordChange(watchID: watchID, text: "v2")
        let log = try await server.send("GET", "/v1/devices/\(id)/pushes", token: key).items()
        #expect(log.count == 1 && log[0]["status"] as? String == "skipped", "\(log)")
        #expect(log[0]["reason"] as? String == "web push is off: TIDINGS_VAPID_PRIVATE_KEY is not set")
    }

    @Test(.timeLimit(.minutes(5)))
    func thePublicKeyIsServedToUsersAndTheAppIsNotTheAdmins() async throws {
        let server = try APITestServer { configuration in
            configuration.vapidPrivateKey = Self.vapidKey
            configuration.vapidSubject = "https://example.com/contact"
        }
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        #expect(try await server.send("GET", "/v1/push/web/vapid-public-key").status == 401)
        let served = try await server.send("GET", "/v1/push/web/vapid-public-key", token: key)
        #expect(served.status == 200)
        #expect(try served.object() as NSDictionary == ["public_key": Self.vapidKey.publicKeyBase64URL] as NSDictionary)
        // The admin API neither lists nor makes the Web Push app.
        let admin = APITestServer.adminToken
        #expect(try await server.send("GET", "/v1/push-apps", token: admin).items().isEmpty)
        let created = try await server.send("POST", "/v1/push-apps", token: admin, json: ["platform": "webpush", "app_id": "vapid"])
        #expect(created.status == 422 && created.text.contains("platform"), "\(created.text)")
        let id = try server.application.database.query("SELECT id::text AS id FROM push_apps WHERE platform = 'webpush'")
            .single().decode("id", as: String.self)
        #expect(try await server.send("GET", "/v1/push-apps/\(id)", token: admin).status == 404)
        #expect(try await server.send("PATCH", "/v1/push-apps/\(id)", token: admin, json: ["app_id": "x"]).status == 404)
        #expect(try await server.send("DELETE", "/v1/push-apps/\(id)", token: admin).status == 404)
        // Its private key is sealed like every push app key.
        let stored = try server.application.database.query("SELECT private_key FROM push_apps WHERE platform = 'webpush'")
            .single().decode("private_key", as: String.self)
        #expect(stored.hasPrefix("enc:v1:"))
    }
}
