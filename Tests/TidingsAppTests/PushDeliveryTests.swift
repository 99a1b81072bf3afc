import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// The whole path of direct push against a mock APNs and FCM over HTTP/2
/// with a test CA: a change moves the count, the push dispatcher sends the
/// new count (and the alert) to every device, a read sends the lower count,
/// a dead token removes its device, and a burst leaves as one push.
///
/// The time limits only catch a hang: beside the target's other suites
/// (up to 24 tests at once, each with its own Tidings) one of these took
/// 12 s on one CI run and 115 s on another, close to the 2 minutes they
/// had.
@Suite(.serialized) struct PushDeliveryTests {
    struct Fixture {
        let mock: MockPushServer
        let server: APITestServer
        let key: String
        let watch: String
        let iosToken: String
        let androidToken = "fcm-registration-token-1"

        func stop() {
            server.stop()
            mock.stop()
        }

        /// Pushes the mock received for `token`, oldest first.
        func received(_ token: String) async throws -> [MockStats.Request] {
            try await mock.stats().requests.filter { $0.token == token || ($0.body?.contains(token) ?? false) }
        }

        func badges(_ token: String) async throws -> [Int] {
            try await received(token).compactMap { request in
                guard request.kind == "apns", request.status == 200, let payload = request.payload,
                    let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
                    let aps = object["aps"] as? [String: Any], aps["alert"] == nil
                else { return nil }
                return aps["badge"] as? Int
            }
        }
    }

    static func iosToken(_ number: Int) -> String {
        String(format: "%064x", number)
    }

    /// A user with an iOS and an Android device and one watch of `url`,
    /// with both push apps registered; `configure` adjusts the rest.
    static func start(
        notify: String = "badge",
        coalesce: Duration = .milliseconds(50),
        url: String = APITestServer.publicURL,
        configure: (inout Configuration) -> Void = { _ in }
    ) async throws -> Fixture {
        let mock = try await MockPushServer.start()
        let server = try APITestServer { configuration in
            configuration.apnsURL = mock.baseURL
            configuration.fcmURL = mock.baseURL
            configuration.pushCAFile = mock.caFile
            configuration.pushCoalescingWindow = coalesce
            configuration.pushRetrySchedule = [.milliseconds(200), .milliseconds(200)]
            configure(&configuration)
        }
        let admin = APITestServer.adminToken
        let apns = try await server.send(
            "POST", "/v1/push-apps", token: admin,
            json: [
                "platform": "apns", "app_id": mock.startup.topic, "environment": "sandbox",
                "team_id": mock.startup.team_id, "key_id": mock.startup.key_id, "private_key": try mock.apnsKey,
            ])
        #expect(apns.status == 201, "\(apns.text)")
        let account = try JSONSerialization.jsonObject(with: Data(try mock.serviceAccountJSON))
        let fcm = try await server.send(
            "POST", "/v1/push-apps", token: admin, json: ["platform": "fcm", "app_id": "com.example.android", "service_account": account])
        #expect(fcm.status == 201, "\(fcm.text)")
        let (_, key) = try await server.createUser()
        let iosToken = Self.iosToken(Int.random(in: 1...1_000_000))
        for body: [String: Any] in [
            ["platform": "ios", "push_token": iosToken, "app_id": mock.startup.topic],
            ["platform": "android", "push_token": "fcm-registration-token-1"],
        ] {
            let device = try await server.send("POST", "/v1/devices", token: key, json: body)
            #expect(device.status == 201, "\(device.text)")
        }
        let watch = try await server.createWatch(token: key, ["url": url, "name": "Changelog", "notify": notify])
        return Fixture(mock: mock, server: server, key: key, watch: try #require(watch["id"] as? String), iosToken: iosToken)
    }

    @Test(.timeLimit(.minutes(5)))
    func changesAndReadsPushTheCountAndAlertsToEveryDevice() async throws {
        let fixture = try await Self.start(notify: "alert")
        defer { fixture.stop() }
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try #require(try fixture.server.recordChange(watchID: fixture.watch, text: "Release 2.0 is out") != nil)

        #expect(try await eventually { try await fixture.badges(fixture.iosToken) == [1] })
        let alert = try #require(try await fixture.received(fixture.iosToken).first { $0.payload?.contains("\"alert\"") == true })
        #expect(alert.push_type == "alert" && alert.priority == "10" && alert.topic == fixture.mock.startup.topic)
        let alertText = try #require(alert.payload)
        let alertPayload = try #require(try JSONSerialization.jsonObject(with: Data(alertText.utf8)) as? [String: Any])
        let aps = try #require(alertPayload["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: Any])?["title"] as? String == "Changelog")
        #expect((aps["alert"] as? [String: Any])?["body"] as? String == "Release 2.0 is out")
        #expect(aps["badge"] as? Int == 1 && aps["thread-id"] as? String == "watch-\(fixture.watch)")
        let badge = try #require(try await fixture.received(fixture.iosToken).first { $0.payload == #"{"aps":{"badge":1}}"# })
        #expect(badge.push_type == "alert" && badge.priority == "5" && badge.collapse_id?.hasPrefix("tidings-badge-") == true)

        // Android: data messages through FCM, the badge and the alert.
        #expect(try await eventually { try await fixture.received(fixture.androidToken).count == 2 })
        let bodies = try await fixture.received(fixture.androidToken).compactMap(\.body)
        #expect(bodies.contains { $0.contains("\"tidings_kind\":\"badge\"") && $0.contains("\"badge\":\"1\"") })
        #expect(bodies.contains { $0.contains("\"tidings_kind\":\"alert\"") && $0.contains("Release 2.0 is out") })

        // A read sends the lower count.
        #expect(try await fixture.server.send("POST", "/v1/badge/read-all", token: fixture.key).status == 200)
        #expect(try await eventually { try await fixture.badges(fixture.iosToken) == [1, 0] })

        // The push log says what happened.
        let devices = try await fixture.server.send("GET", "/v1/devices", token: fixture.key).items()
        let ios = try #require(devices.first { $0["platform"] as? String == "ios" }?["id"] as? String)
        // The mock counts a push as it answers, before Tidings records it.
        #expect(
            try await eventually {
                let log = try await fixture.server.send("GET", "/v1/devices/\(ios)/pushes", token: fixture.key).items()
                return log.count == 3 && log.allSatisfy { $0["status"] as? String == "sent" && $0["provider_id"] as? String != nil }
            })
        // Every APNs push of the test went over one connection.
        #expect(try await Set(fixture.mock.stats().apns.map(\.connection)).count == 1)
        let metrics = try await fixture.server.send("GET", "/metrics").text
        #expect(metrics.contains(#"tidings_pushes_total{kind="badge",outcome="delivered",platform="apns"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"tidings_pushes_total{kind="alert",outcome="delivered",platform="fcm"} 1"#))
    }

    /// Each replica holds at most 4 pushes in flight and the mock answers
    /// each after 0.2 s, so one replica alone would take seconds: both
    /// claim, and still every push goes out once.
    @Test(.timeLimit(.minutes(5)))
    func twoReplicasSendEachPushOnce() async throws {
        let fixture = try await Self.start { $0.pushMaxInFlight = 4 }
        defer { fixture.stop() }
        let second = try APITestServer(sharingDatabaseWith: fixture.server) { configuration in
            configuration.apnsURL = fixture.mock.baseURL
            configuration.fcmURL = fixture.mock.baseURL
            configuration.pushCAFile = fixture.mock.caFile
            configuration.pushMaxInFlight = 4
        }
        defer { second.stop() }
        try await fixture.mock.setDelay(0.2)
        let database = fixture.server.application.database
        let user = try database.query("SELECT user_id::text AS id FROM devices LIMIT 1").single().decode("id", as: String.self)
        _ = try database.query(
            """
            INSERT INTO devices (user_id, platform, push_token, app_id)
            SELECT \(user)::uuid, 'ios', lpad(to_hex(n + 1000000), 64, '0'), \(fixture.mock.startup.topic)
            FROM generate_series(1, 90) AS n
            """)
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        #expect(
            try await eventually {
                try database.query("SELECT count(*) AS n FROM pushes WHERE status = 'sent'").single().decode("n", as: Int.self) == 92
            })
        let received = try await fixture.mock.stats().requests.filter { $0.status == 200 }
        #expect(received.count == 92, "each push once, whichever replica sent it")
        let owners = try database.query("SELECT count(DISTINCT owner) AS n FROM lease_owners WHERE holds = 'pushes'").single().decode(
            "n", as: Int.self)
        #expect(owners == 2)
        var sentByReplica: [Int] = []
        for replica in [fixture.server, second] {
            let metrics = try await replica.send("GET", "/metrics").text
            let line = metrics.split(separator: "\n").first {
                $0.hasPrefix(#"tidings_pushes_total{kind="badge",outcome="delivered",platform="apns"}"#)
            }
            sentByReplica.append(line.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0)
        }
        #expect(sentByReplica.allSatisfy { $0 > 0 } && sentByReplica.reduce(0, +) == 91, "APNs pushes each replica sent: \(sentByReplica)")
    }

    /// The longest name a watch may have and a change line of any length,
    /// in the widest characters and ones JSON must escape, still make an
    /// alert under APNs' 4 KB: title and body are cut to 178 characters.
    @Test(.timeLimit(.minutes(5)))
    func theLargestAlertStaysUnderFourKilobytes() async throws {
        let fixture = try await Self.start(notify: "alert")
        defer { fixture.stop() }
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}" // 7 scalars, 25 bytes
        // Names are counted in scalars: 200 of 4 bytes or escaped in JSON.
        let name = String(repeating: "\"\\\u{1F600}\u{1F468}", count: WatchSettings.maximumNameLength / 4)
        let renamed = try await fixture.server.send("PATCH", "/v1/watches/\(fixture.watch)", token: fixture.key, json: ["name": name])
        #expect(renamed.status == 200, "\(renamed.text)")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: String(repeating: "\"\\\u{1}" + family, count: 2000))

        #expect(
            try await eventually {
                try await fixture.received(fixture.iosToken).contains { $0.payload?.contains("\"alert\"") == true && $0.status == 200 }
            })
        let alert = try #require(try await fixture.received(fixture.iosToken).first { $0.payload?.contains("\"alert\"") == true })
        #expect(alert.status == 200)
        let size = try #require(alert.payload_size)
        #expect(size <= 4096, "\(size) bytes")
        let payloadText = try #require(alert.payload)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(payloadText.utf8)) as? [String: Any])
        let content = try #require((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])
        #expect((content["title"] as? String)?.unicodeScalars.count == 178)
        #expect((content["body"] as? String)?.unicodeScalars.count == 178)
        // FCM carries the same alert as a data message, at high priority.
        #expect(
            try await eventually {
                try await fixture.received(fixture.androidToken).contains { $0.body?.contains("\"tidings_kind\":\"alert\"") == true }
            })
        let android = try #require(
            try await fixture.received(fixture.androidToken).first { $0.body?.contains("\"tidings_kind\":\"alert\"") == true })
        #expect(android.status == 200)
        let body = try #require(android.body)
        let message = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(((message["message"] as? [String: Any])?["android"] as? [String: Any])?["priority"] as? String == "high")
    }

    /// APNs ties a connection to the provider token sent on it: two apps'
    /// tokens must not take turns on one. Each push app has a connection
    /// of its own, here three apps on one mock host.
    @Test(.timeLimit(.minutes(5)))
    func eachPushAppHasAConnectionOfItsOwn() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let mock = fixture.mock
        let second = try await fixture.server.send(
            "POST", "/v1/push-apps", token: APITestServer.adminToken,
            json: [
                "platform": "apns", "app_id": mock.startup.second_topic, "environment": "sandbox",
                "team_id": mock.startup.team_id, "key_id": mock.startup.key_id, "private_key": try mock.apnsKey,
            ])
        #expect(second.status == 201, "\(second.text)")
        let secondToken = Self.iosToken(Int.random(in: 1_000_001...2_000_000))
        let device = try await fixture.server.send(
            "POST", "/v1/devices", token: fixture.key,
            json: [
                "platform": "ios", "push_token": secondToken, "app_id": mock.startup.second_topic,
            ])
        #expect(device.status == 201, "\(device.text)")

        // A baseline, then a change: a badge push of 1 to each device.
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        #expect(try await eventually { try await fixture.badges(secondToken) == [1] })
        #expect(try await eventually { try await fixture.badges(fixture.iosToken) == [1] })
        #expect(try await eventually { try await fixture.received(fixture.androidToken).count == 1 })

        let stats = try await mock.stats()
        let first = Set(stats.apns.filter { $0.topic == mock.startup.topic }.map(\.connection))
        let other = Set(stats.apns.filter { $0.topic == mock.startup.second_topic }.map(\.connection))
        let fcm = Set(stats.fcm.map(\.connection))
        #expect(first.count == 1 && other.count == 1 && fcm.count == 1, "connections per app: \(first), \(other), \(fcm)")
        #expect(first.isDisjoint(with: other) && first.isDisjoint(with: fcm) && other.isDisjoint(with: fcm))
        #expect(stats.apns.allSatisfy { $0.status == 200 })
    }

    @Test(.timeLimit(.minutes(5)))
    func aDeadTokenRemovesItsDeviceAndIsAnnounced() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        try await fixture.mock.script(token: fixture.iosToken, [["status": 410, "reason": "Unregistered"]])
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        let database = fixture.server.application.database
        #expect(
            try await eventually {
                try database.query("SELECT count(*) AS n FROM devices WHERE push_token = \(fixture.iosToken)").single().decode(
                    "n", as: Int.self) == 0
            })
        let event = try database.query("SELECT data->>'reason' AS reason FROM events WHERE type = 'device.invalidated'").single()
        #expect(try event.decode("reason", as: String.self).contains("Unregistered"))
        // The Android device is untouched and got its count.
        #expect(try await eventually { try await fixture.received(fixture.androidToken).count == 1 })
    }

    @Test(.timeLimit(.minutes(5)))
    func aBurstOfChangesSendsOnlyTheFinalCount() async throws {
        let fixture = try await Self.start(coalesce: .seconds(1))
        defer { fixture.stop() }
        try fixture.server.recordChange(watchID: fixture.watch, text: "v0")
        for version in 1...8 { try fixture.server.recordChange(watchID: fixture.watch, text: "v\(version)") }
        #expect(try await eventually { try await fixture.badges(fixture.iosToken) == [8] })
        // And nothing more follows: a negative check, so a fixed wait past the 1 s window.
        try await Task.sleep(for: .seconds(1.5))
        #expect(try await fixture.badges(fixture.iosToken) == [8])
    }

    @Test(.timeLimit(.minutes(5)))
    func aServiceErrorIsRetriedAndThenSent() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        try await fixture.mock.script(token: fixture.iosToken, [["status": 503, "reason": "ServiceUnavailable"]])
        try fixture.server.recordChange(watchID: fixture.watch, text: "v1")
        try fixture.server.recordChange(watchID: fixture.watch, text: "v2")
        #expect(try await eventually { try await fixture.badges(fixture.iosToken) == [1] })
        let statuses = try await fixture.received(fixture.iosToken).compactMap(\.status)
        #expect(statuses == [503, 200])
    }
}
