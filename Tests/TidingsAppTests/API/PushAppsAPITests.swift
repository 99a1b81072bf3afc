import Foundation
import Testing
import TidingsApp
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// `/v1/push-apps`: admin only, keys checked on the way in, stored sealed,
/// never returned or logged.
@Suite struct PushAppsAPITests {
    static func apns(_ appID: String = "com.example.app", key: String = TestPushKeys.p256.pem) -> [String: Any] {
        [
            "platform": "apns", "app_id": appID, "environment": "production", "team_id": "TEAM123456", "key_id": "KEY1234567",
            "private_key": key,
        ]
    }

    static func fcm(_ appID: String = "com.example.android") -> [String: Any] {
        ["platform": "fcm", "app_id": appID, "service_account": TestPushKeys.serviceAccount()]
    }

    private static let keyMarkers = [
        "BEGIN PRIVATE KEY", "PRIVATE KEY-----", String(TestPushKeys.p256.pem.split(separator: "\n")[1].prefix(24)),
    ]

    @Test func createShowListUpdateDelete() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let admin = APITestServer.adminToken

        let apns = try await server.send("POST", "/v1/push-apps", token: admin, json: Self.apns())
        #expect(apns.status == 201, "\(apns.text)")
        let apnsApp = try apns.object()
        #expect(apnsApp["platform"] as? String == "apns" && apnsApp["environment"] as? String == "production")
        #expect(apnsApp["team_id"] as? String == "TEAM123456" && apnsApp["project_id"] is NSNull)
        #expect(apnsApp["private_key"] == nil)
        let fcm = try await server.send("POST", "/v1/push-apps", token: admin, json: Self.fcm())
        #expect(fcm.status == 201, "\(fcm.text)")
        let fcmApp = try fcm.object()
        #expect(fcmApp["client_email"] as? String == "tidings@tidings-test.iam.gserviceaccount.com")
        #expect(fcmApp["token_uri"] as? String == "https://oauth2.example.com/token" && fcmApp["team_id"] is NSNull)

        let duplicate = try await server.send("POST", "/v1/push-apps", token: admin, json: Self.apns())
        #expect(duplicate.status == 409 && duplicate.isProblem)
        // The same app id on the other platform is another app.
        #expect(try await server.send("POST", "/v1/push-apps", token: admin, json: Self.fcm("com.example.app")).status == 201)

        let list = try await server.send("GET", "/v1/push-apps?limit=2", token: admin)
        #expect(try list.items().count == 2)
        #expect(try list.object()["next_cursor"] as? String != nil)
        let id = try #require(apnsApp["id"] as? String)
        var responses = [apns, fcm, list, try await server.send("GET", "/v1/push-apps/\(id)", token: admin)]

        // Rotate the key and move to sandbox; other platforms' members are refused.
        let rotated = try await server.send(
            "PATCH", "/v1/push-apps/\(id)", token: admin,
            json: [
                "environment": "sandbox", "private_key": TestPushKeys.otherP256.pem,
            ])
        #expect(rotated.status == 200, "\(rotated.text)")
        #expect(try rotated.object()["environment"] as? String == "sandbox")
        responses.append(rotated)
        let crossed = try await server.send(
            "PATCH", "/v1/push-apps/\(id)", token: admin, json: ["service_account": TestPushKeys.serviceAccount()])
        #expect(crossed.status == 422)
        #expect(try crossed.object()["field"] as? String == "service_account")
        let platform = try await server.send("PATCH", "/v1/push-apps/\(id)", token: admin, json: ["platform": "fcm"])
        #expect(platform.status == 422)
        #expect(try platform.object()["field"] as? String == "platform")
        let clash = try await server.send(
            "PATCH", "/v1/push-apps/\(try #require(fcmApp["id"] as? String))", token: admin, json: ["app_id": "com.example.app"])
        #expect(clash.status == 409)

        for response in responses {
            for marker in Self.keyMarkers { #expect(!response.text.contains(marker), "\(response.text)") }
        }
        let log = server.logSink.lines.joined(separator: "\n")
        #expect(log.contains("push app created"))
        for marker in Self.keyMarkers { #expect(!log.contains(marker)) }

        // Stored sealed; opened, it is the rotated key.
        let stored = try server.application.database.query("SELECT private_key FROM push_apps WHERE id = \(id)::uuid").single()
            .decode("private_key", as: String.self)
        #expect(stored.hasPrefix("enc:v1:"))

        #expect(try await server.send("DELETE", "/v1/push-apps/\(id)", token: admin).status == 204)
        #expect(try await server.send("GET", "/v1/push-apps/\(id)", token: admin).status == 404)
        #expect(try await server.send("DELETE", "/v1/push-apps/\(id)", token: admin).status == 404)
    }

    @Test func onlyTheAdminReachesPushApps() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send("POST", "/v1/push-apps", token: key, json: Self.apns())
        #expect(response.status == 403)
        #expect(try await server.send("GET", "/v1/push-apps", token: key).status == 403)
        #expect(try await server.send("GET", "/v1/push-apps").status == 401)
        #expect(try server.application.database.query("SELECT count(*) AS n FROM push_apps").single().decode("n", as: Int.self) == 0)
    }

    /// (field, body, what the message says); bodies are built per test,
    /// since JSON objects are not Sendable arguments.
    static func badBody(_ index: Int) -> (String, [String: Any], String) {
        let cases: [(String, [String: Any], String)] = [
            ("private_key", Self.apns(key: TestPushKeys.rsa.pem), "must be an EC private key on the P-256 curve"),
            ("private_key", Self.apns(key: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), "is not a PEM private key"),
            ("private_key", Self.apns(key: String(repeating: "A", count: 20_000)), "must be at most 16384 bytes"),
            ("environment", Self.apns().merging(["environment": "staging"]) { $1 }, "must be one of production, sandbox"),
            ("team_id", Self.apns().merging(["team_id": "team id!"]) { $1 }, "letters and digits"),
            ("app_id", Self.apns("com example"), "bundle id"),
            ("platform", Self.apns().merging(["platform": "webpush"]) { $1 }, "must be one of apns, fcm"),
            ("service_account", Self.apns().merging(["service_account": [:] as [String: Any]]) { $1 }, "is only for fcm apps"),
            ("private_key", Self.fcm().merging(["private_key": TestPushKeys.p256.pem]) { $1 }, "is only for apns apps"),
            (
                "service_account.private_key",
                Self.fcm().merging(["service_account": TestPushKeys.serviceAccount().merging(["private_key": TestPushKeys.p256.pem]) { $1 }]
                ) { $1 }, "must be an RSA private key"
            ),
            (
                "service_account.token_uri",
                Self.fcm().merging(["service_account": TestPushKeys.serviceAccount(tokenURI: "http://plain.example/token")]) { $1 },
                "https URL"
            ),
            (
                "service_account.client_email",
                Self.fcm().merging(["service_account": TestPushKeys.serviceAccount().merging(["client_email": "nobody"]) { $1 }]) { $1 },
                "e-mail"
            ),
        ]
        return cases[index]
    }

    /// One server for every case: a server per case, all in parallel, costs
    /// the test PostgreSQL dozens of connections each.
    @Test func badBodiesAre422NamingTheFieldAndWriteNothing() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        for index in 0..<12 {
            let (field, body, message) = Self.badBody(index)
            let response = try await server.send("POST", "/v1/push-apps", token: APITestServer.adminToken, json: body)
            #expect(response.status == 422, "\(field): \(response.text)")
            #expect(response.isProblem)
            let detail = try #require(try response.object()["detail"] as? String)
            #expect(detail.hasPrefix("\(field): ") && detail.contains(message), "\(detail)")
            for marker in Self.keyMarkers { #expect(!response.text.contains(marker)) }
        }
        #expect(try server.application.database.query("SELECT count(*) AS n FROM push_apps").single().decode("n", as: Int.self) == 0)
    }
}
