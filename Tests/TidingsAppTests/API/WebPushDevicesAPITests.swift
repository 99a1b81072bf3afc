import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// Registering a browser's `PushSubscription` as a web device, and every
/// way it can be wrong: each bad one is a 422 naming the field, and nothing
/// is written. The endpoint is a tenant's outbound URL, so the SSRF guard
/// checks it (private targets are not allowed here).
@Suite struct WebPushDevicesAPITests {
    static let vapidKey = try! P256KeyPair.generate()

    static func server() throws -> APITestServer {
        try APITestServer { configuration in
            configuration.vapidPrivateKey = Self.vapidKey
            configuration.vapidSubject = "mailto:ops@example.com"
        }
    }

    static func deviceCount(_ server: APITestServer) throws -> Int {
        try server.application.database.query("SELECT count(*) AS n FROM devices").single().decode("n", as: Int.self)
    }

    static func subscription(
        endpoint: String = WebPushTestKeys.publicEndpoint(), p256dh: Any? = nil, auth: Any? = nil, keys: Any? = nil
    ) throws -> [String: Any] {
        var body = try WebPushTestKeys.subscription(endpoint: endpoint)
        var stored = body["keys"] as! [String: Any]
        if let p256dh { stored["p256dh"] = p256dh }
        if let auth { stored["auth"] = auth }
        body["keys"] = keys ?? stored
        return body
    }

    /// A point that is not on P-256: 0x04, then x = 1, y = 1.
    static let offCurve = Base64.encodeURLSafe([0x04] + [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [1])

    @Test func hostileSubscriptionsAreRefusedNamingTheField() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let validKey = try P256KeyPair.generate().publicKeyBase64URL
        let cases: [(field: String, body: [String: Any])] = [
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "http://93.184.215.14/wp/1")]
            ),
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "https://127.0.0.1/wp/1")]
            ),
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "https://10.1.2.3:8443/wp/1")]
            ),
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "https://169.254.169.254/latest/meta-data")]
            ),
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "https://[::1]/wp/1")]
            ),
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "https://user:secret@93.184.215.14/wp/1")]
            ),
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "https://93.184.215.14/wp/1#fragment")]
            ),
            (
                "push_subscription.endpoint",
                [
                    "platform": "web",
                    "push_subscription": try Self.subscription(endpoint: "https://updates.push.services.mozilla.com./wpush/v2/1"),
                ]
            ),
            (
                "push_subscription.endpoint",
                [
                    "platform": "web",
                    "push_subscription": try Self.subscription(
                        endpoint: "https://93.184.215.14/wp/" + String(repeating: "a", count: 2048)),
                ]
            ),
            (
                "push_subscription.endpoint",
                ["platform": "web", "push_subscription": try Self.subscription(endpoint: "https://93.184.215.14/wp/a b")]
            ),
            ("push_subscription.endpoint", ["platform": "web", "push_subscription": try Self.subscription(endpoint: "")]),
            (
                "push_subscription.keys.p256dh",
                ["platform": "web", "push_subscription": try Self.subscription(p256dh: String(validKey.dropLast(2)))]
            ),
            (
                "push_subscription.keys.p256dh",
                [
                    "platform": "web",
                    "push_subscription": try Self.subscription(
                        p256dh: Base64.encodeURLSafe([UInt8](repeating: 7, count: 64))),
                ]
            ),
            ("push_subscription.keys.p256dh", ["platform": "web", "push_subscription": try Self.subscription(p256dh: Self.offCurve)]),
            (
                "push_subscription.keys.p256dh",
                [
                    "platform": "web",
                    "push_subscription": try Self.subscription(
                        p256dh: "B" + String(repeating: "+", count: 86)),
                ]
            ),
            ("push_subscription.keys.p256dh", ["platform": "web", "push_subscription": try Self.subscription(p256dh: "not base64url!")]),
            ("push_subscription.keys.p256dh", ["platform": "web", "push_subscription": try Self.subscription(p256dh: 42)]),
            (
                "push_subscription.keys.auth",
                [
                    "platform": "web",
                    "push_subscription": try Self.subscription(
                        auth: Base64.encodeURLSafe([UInt8](repeating: 1, count: 15))),
                ]
            ),
            (
                "push_subscription.keys.auth",
                [
                    "platform": "web",
                    "push_subscription": try Self.subscription(
                        auth: Base64.encodeURLSafe([UInt8](repeating: 1, count: 17))),
                ]
            ),
            ("push_subscription.keys.auth", ["platform": "web", "push_subscription": try Self.subscription(auth: "")]),
            ("push_subscription.keys.auth", ["platform": "web", "push_subscription": try Self.subscription(keys: ["p256dh": validKey])]),
            ("push_subscription.keys", ["platform": "web", "push_subscription": ["endpoint": WebPushTestKeys.publicEndpoint()]]),
            (
                "push_subscription.keys.extra",
                [
                    "platform": "web",
                    "push_subscription": try Self.subscription(
                        keys: ["p256dh": validKey, "auth": "AAAAAAAAAAAAAAAAAAAAAA", "extra": "x"]),
                ]
            ),
            ("push_subscription", ["platform": "web"]),
            ("push_subscription", ["platform": "ios", "push_token": "aa11", "push_subscription": try Self.subscription()]),
            ("push_subscription", ["platform": "android", "push_token": "fcm-1", "push_subscription": try Self.subscription()]),
            (
                "push_token",
                ["platform": "web", "push_token": WebPushTestKeys.publicEndpoint(), "push_subscription": try Self.subscription()]
            ),
            ("push_token", ["platform": "web", "push_token": WebPushTestKeys.publicEndpoint()]),
        ]
        for (field, body) in cases {
            let response = try await server.send("POST", "/v1/devices", token: key, json: body)
            #expect(response.status == 422, "\(field): \(response.text)")
            #expect(response.isProblem)
            #expect(try response.object()["field"] as? String == field, "\(response.text)")
            #expect(try Self.deviceCount(server) == 0, "nothing written for \(field)")
        }
        // Nothing of a refused key reaches a problem or the logs.
        #expect(!server.logSink.lines.joined().contains(Self.offCurve))
    }

    @Test func reRegisteringTheEndpointUpdatesTheDeviceAndItsKeys() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let endpoint = WebPushTestKeys.publicEndpoint("same")
        let first = try await server.send(
            "POST", "/v1/devices", token: key,
            json: [
                "platform": "web", "name": "Firefox", "push_subscription": try Self.subscription(endpoint: endpoint),
            ])
        #expect(first.status == 201, "\(first.text)")
        let shown = try first.object()
        #expect(shown["push_token"] as? String == endpoint && shown["platform"] as? String == "web")
        #expect(shown["push_subscription"] == nil && !first.text.contains("p256dh") && !first.text.contains("auth"), "keys are write-only")

        // The browser re-subscribed: same endpoint, new keys, and a
        // browser's toJSON() with expirationTime.
        var renewed = try Self.subscription(endpoint: endpoint)
        renewed["expirationTime"] = NSNull()
        let second = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "web", "push_subscription": renewed])
        #expect(second.status == 200, "\(second.text)")
        #expect(try second.object()["id"] as? String == shown["id"] as? String)
        #expect(try second.object()["name"] as? String == "Firefox")
        let row = try server.application.database.query("SELECT web_push_p256dh, web_push_auth FROM devices").single()
        let keys = renewed["keys"] as! [String: String]
        #expect(try row.decode("web_push_p256dh", as: String.self) == keys["p256dh"])
        // auth is sealed at rest, and opens to what the browser sent.
        let sealed = try row.decode("web_push_auth", as: String.self)
        #expect(sealed.hasPrefix("enc:v1:") && !sealed.contains(keys["auth"]!))
        #expect(try server.application.secrets.openWebPushAuth(sealed) == keys["auth"])
        #expect(try Self.deviceCount(server) == 1)
    }

    @Test func aWebDeviceCannotTurnIntoAnAppDeviceOrBack() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let web = try await server.send(
            "POST", "/v1/devices", token: key, json: ["platform": "web", "push_subscription": try Self.subscription()])
        let ios = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": "aa11"])
        let webID = try #require(try web.object()["id"] as? String)
        let iosID = try #require(try ios.object()["id"] as? String)
        for (id, platform) in [(webID, "ios"), (webID, "android"), (iosID, "web")] {
            let response = try await server.send("PATCH", "/v1/devices/\(id)", token: key, json: ["platform": platform, "name": "changed"])
            #expect(response.status == 422, "\(response.text)")
            #expect(try response.object()["field"] as? String == "platform")
        }
        #expect(
            try server.application.database.query("SELECT count(*) AS n FROM devices WHERE name IS NOT NULL").single().decode(
                "n", as: Int.self) == 0)
        // Within its kind a device changes as before.
        let renamed = try await server.send("PATCH", "/v1/devices/\(webID)", token: key, json: ["platform": "web", "name": "Laptop"])
        #expect(renamed.status == 200)
        #expect(try renamed.object()["name"] as? String == "Laptop")
        #expect(try await server.send("PATCH", "/v1/devices/\(iosID)", token: key, json: ["platform": "android"]).status == 200)
        // A registration of an app token at a web device's endpoint makes it
        // an app device without keys.
        let endpoint = try #require(try web.object()["push_token"] as? String)
        let replaced = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": endpoint])
        #expect(replaced.status == 200)
        #expect(try replaced.object()["id"] as? String == webID)
        let row = try server.application.database.query("SELECT web_push_p256dh, web_push_auth FROM devices WHERE id = \(webID)::uuid")
            .single()
        #expect(try row.decode("web_push_p256dh", as: String?.self) == nil && row.decode("web_push_auth", as: String?.self) == nil)
    }
}
