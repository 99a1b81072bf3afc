import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

@Suite struct WebhooksAPITests {
    /// A public address: accepted by the SSRF guard without a DNS lookup.
    static let publicURL = "https://93.184.216.34/hooks/tidings"
    static let allEventTypes = [
        "watch.changed", "badge.updated", "watch.failing", "watch.recovered", "webhook.disabled", "device.invalidated",
    ]

    @Test func createShowUpdateDisableEnableAndDelete() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let created = try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.publicURL, "description": "CI"])
        #expect(created.status == 201, "\(created.text)")
        let webhook = try created.object()
        let id = try #require(webhook["id"] as? String)
        let secret = try #require(webhook["secret"] as? String)
        #expect(secret.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
        #expect(webhook["url"] as? String == Self.publicURL)
        #expect(webhook["event_types"] as? [String] == Self.allEventTypes, "all event types by default")
        #expect(webhook["description"] as? String == "CI")
        #expect(webhook["enabled"] as? Bool == true)
        #expect(webhook["disabled_reason"] is NSNull && webhook["disabled_at"] is NSNull)
        #expect(webhook["global"] as? Bool == false)

        let shown = try await server.send("GET", "/v1/webhooks/\(id)", token: key)
        #expect(shown.status == 200)
        #expect(try shown.object()["secret"] == nil)
        #expect(!shown.text.contains(secret))
        let list = try await server.send("GET", "/v1/webhooks", token: key)
        #expect(try list.items().map { $0["id"] as? String } == [id])
        #expect(!list.text.contains(secret) && !list.text.contains("\"secret\""))

        let updated = try await server.send(
            "PATCH", "/v1/webhooks/\(id)", token: key,
            json: [
                "event_types": ["watch.failing", "watch.changed"], "description": NSNull(), "url": "http://93.184.216.34:8080/other",
            ])
        #expect(updated.status == 200, "\(updated.text)")
        let changed = try updated.object()
        #expect(changed["event_types"] as? [String] == ["watch.changed", "watch.failing"], "canonical order")
        #expect(changed["description"] is NSNull)
        #expect(changed["url"] as? String == "http://93.184.216.34:8080/other")
        #expect(changed["secret"] == nil)

        let disabled = try await server.send("PATCH", "/v1/webhooks/\(id)", token: key, json: ["enabled": false])
        #expect(disabled.status == 200)
        #expect(try disabled.object()["enabled"] as? Bool == false)
        #expect(try disabled.object()["disabled_reason"] as? String == "disabled by its owner")
        #expect(try disabled.object()["disabled_at"] as? String != nil)

        let enabled = try await server.send("POST", "/v1/webhooks/\(id)/enable", token: key)
        #expect(enabled.status == 200, "\(enabled.text)")
        #expect(try enabled.object()["enabled"] as? Bool == true)
        #expect(try enabled.object()["disabled_reason"] is NSNull && enabled.object()["disabled_at"] is NSNull)

        #expect(try await server.send("DELETE", "/v1/webhooks/\(id)", token: key).status == 204)
        #expect(try await server.send("GET", "/v1/webhooks/\(id)", token: key).status == 404)
        #expect(try await server.send("POST", "/v1/webhooks/\(id)/rotate-secret", token: key).status == 404)
    }

    @Test func rotationKeepsThePreviousSecretForADay() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let created = try await server.send(
            "POST", "/v1/webhooks", token: key, json: ["url": Self.publicURL, "event_types": ["badge.updated"]])
        let id = try #require(try created.object()["id"] as? String)
        let firstSecret = try #require(try created.object()["secret"] as? String)

        let rotated = try await server.send("POST", "/v1/webhooks/\(id)/rotate-secret", token: key)
        #expect(rotated.status == 200, "\(rotated.text)")
        let secondSecret = try #require(try rotated.object()["secret"] as? String)
        #expect(secondSecret.hasPrefix("whsec_") && secondSecret != firstSecret)
        #expect(try rotated.object()["event_types"] as? [String] == ["badge.updated"])

        let webhookID = try #require(UUID(uuidString: id))
        let row = try #require(
            try server.application.database.query(
                """
                SELECT secret, previous_secret,
                       extract(epoch FROM previous_secret_expires_at - now()) AS expires_in
                FROM webhooks WHERE id = \(webhookID)
                """
            ).first)
        // Stored sealed (encrypted at rest); opened, they are the secrets issued.
        let storedSecret = try row.decode("secret", as: String.self)
        let storedPrevious = try row.decode("previous_secret", as: String.self)
        #expect(storedSecret.hasPrefix("enc:v1:") && storedPrevious.hasPrefix("enc:v1:"))
        #expect(!storedSecret.contains(String(secondSecret.dropFirst(6))) && !storedPrevious.contains(String(firstSecret.dropFirst(6))))
        #expect(try server.application.secrets.openWebhookSecret(storedSecret) == secondSecret)
        #expect(try server.application.secrets.openWebhookSecret(storedPrevious) == firstSecret)
        let expiresIn = try row.decode("expires_in", as: Double.self)
        #expect(abs(expiresIn - 86_400) < 60, "the previous secret expires about 24 h from now")

        let shown = try await server.send("GET", "/v1/webhooks/\(id)", token: key)
        #expect(!shown.text.contains(firstSecret) && !shown.text.contains(secondSecret))
        let list = try await server.send("GET", "/v1/webhooks", token: key)
        #expect(!list.text.contains(firstSecret) && !list.text.contains(secondSecret))

        let log = server.logSink.lines.joined(separator: "\n")
        #expect(!log.contains(firstSecret) && !log.contains(secondSecret))
        #expect(!log.contains(String(firstSecret.dropFirst(6))) && !log.contains(String(secondSecret.dropFirst(6))))
        #expect(log.contains("webhook secret rotated") && log.contains(id))
        #expect(!log.contains(Self.publicURL), "URLs may embed receiver tokens")
    }

    @Test func usersNeverReachEachOthersWebhooks() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, alice) = try await server.createUser()
        let (_, bob) = try await server.createUser()
        let created = try await server.send("POST", "/v1/webhooks", token: alice, json: ["url": Self.publicURL, "description": "Alice"])
        let id = try #require(try created.object()["id"] as? String)
        #expect(try await server.send("POST", "/v1/webhooks", token: bob, json: ["url": Self.publicURL]).status == 201)

        #expect(try await server.send("GET", "/v1/webhooks/\(id)", token: bob).status == 404)
        let patch = try await server.send("PATCH", "/v1/webhooks/\(id)", token: bob, json: ["description": "Bob", "enabled": false])
        #expect(patch.status == 404 && patch.isProblem)
        #expect(try await server.send("DELETE", "/v1/webhooks/\(id)", token: bob).status == 404)
        #expect(try await server.send("POST", "/v1/webhooks/\(id)/rotate-secret", token: bob).status == 404)
        #expect(try await server.send("POST", "/v1/webhooks/\(id)/enable", token: bob).status == 404)
        let bobsList = try await server.send("GET", "/v1/webhooks", token: bob).items()
        #expect(bobsList.count == 1 && bobsList[0]["id"] as? String != id)

        let untouched = try await server.send("GET", "/v1/webhooks/\(id)", token: alice).object()
        #expect(untouched["description"] as? String == "Alice" && untouched["enabled"] as? Bool == true)
        #expect(try await server.send("GET", "/v1/webhooks", token: alice).items().map { $0["id"] as? String } == [id])
    }

    @Test func globalWebhooksBelongToTheAdminOnly() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let admin = APITestServer.adminToken
        let userHook = try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.publicURL])
        let userHookID = try #require(try userHook.object()["id"] as? String)

        let created = try await server.send(
            "POST", "/v1/admin/webhooks", token: admin,
            json: ["url": Self.publicURL, "event_types": ["badge.updated"], "description": "push gateway"])
        #expect(created.status == 201, "\(created.text)")
        let global = try created.object()
        let id = try #require(global["id"] as? String)
        #expect(global["global"] as? Bool == true)
        #expect((global["secret"] as? String)?.hasPrefix("whsec_") == true)
        let webhookID = try #require(UUID(uuidString: id))
        let stored = try #require(
            try server.application.database.query("SELECT user_id, global FROM webhooks WHERE id = \(webhookID)").first)
        #expect(try stored.decode("user_id", as: UUID?.self) == nil)
        #expect(try stored.decode("global", as: Bool.self))

        let adminList = try await server.send("GET", "/v1/admin/webhooks", token: admin)
        #expect(try adminList.items().map { $0["id"] as? String } == [id])
        #expect(try await server.send("GET", "/v1/webhooks", token: key).items().map { $0["id"] as? String } == [userHookID])

        for (method, path) in [("GET", ""), ("DELETE", ""), ("POST", "/rotate-secret"), ("POST", "/enable")] {
            #expect(try await server.send(method, "/v1/webhooks/\(id)\(path)", token: key).status == 404, "\(method) \(path) as a user")
            #expect(
                try await server.send(method, "/v1/admin/webhooks/\(userHookID)\(path)", token: admin).status == 404,
                "\(method) \(path) as the admin")
        }
        #expect(try await server.send("PATCH", "/v1/webhooks/\(id)", token: key, json: ["enabled": false]).status == 404)
        #expect(try await server.send("PATCH", "/v1/admin/webhooks/\(userHookID)", token: admin, json: ["enabled": false]).status == 404)

        #expect(try await server.send("GET", "/v1/admin/webhooks", token: key).status == 403)
        #expect(try await server.send("POST", "/v1/admin/webhooks", token: key, json: ["url": Self.publicURL]).status == 403)
        #expect(try await server.send("GET", "/v1/webhooks", token: admin).status == 403)

        let rotated = try await server.send("POST", "/v1/admin/webhooks/\(id)/rotate-secret", token: admin)
        #expect(rotated.status == 200)
        let patched = try await server.send("PATCH", "/v1/admin/webhooks/\(id)", token: admin, json: ["enabled": false])
        #expect(try patched.object()["enabled"] as? Bool == false)
        #expect(try await server.send("DELETE", "/v1/admin/webhooks/\(id)", token: admin).status == 204)
        #expect(try await server.send("GET", "/v1/webhooks/\(userHookID)", token: key).status == 200)
    }

    @Test func theDatabaseRefusesAGlobalFlagThatDisagreesWithTheOwner() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, _) = try await server.createUser()
        let owner = try #require(UUID(uuidString: userID))
        for (user, global) in [(owner as UUID?, true), (nil, false)] {
            #expect(throws: PostgresError.self) {
                try server.application.database.query(
                    """
                    INSERT INTO webhooks (user_id, global, url, event_types, secret)
                    VALUES (\(user), \(global), 'https://example.com/', '{watch.changed}', 'whsec_AAAA')
                    """)
            }
        }
    }

    @Test func privateTargetsAreRefusedUnlessAllowed() async throws {
        let guarded = try APITestServer()
        defer { guarded.stop() }
        let (_, key) = try await guarded.createUser()
        let refused = try await guarded.send("POST", "/v1/webhooks", token: key, json: ["url": "http://127.0.0.1:9/x"])
        #expect(refused.status == 422)
        let detail = try #require(try refused.object()["detail"] as? String)
        // Not allowed, and nothing about which address or range.
        #expect(detail == "url: the target is not allowed: its address is not publicly reachable")
        #expect(try refused.object()["field"] as? String == "url")
        #expect(try await guarded.send("GET", "/v1/webhooks", token: key).items().isEmpty)

        let created = try await guarded.send("POST", "/v1/webhooks", token: key, json: ["url": Self.publicURL])
        let id = try #require(try created.object()["id"] as? String)
        let moved = try await guarded.send(
            "PATCH", "/v1/webhooks/\(id)", token: key, json: ["url": "http://[::1]:9/x", "description": "moved"])
        #expect(moved.status == 422)
        #expect((try moved.object()["detail"] as? String)?.hasPrefix("url: ") == true)
        let kept = try await guarded.send("GET", "/v1/webhooks/\(id)", token: key).object()
        #expect(kept["url"] as? String == Self.publicURL && kept["description"] is NSNull)

        let open = try APITestServer { $0.allowPrivateTargets = true }
        defer { open.stop() }
        let (_, openKey) = try await open.createUser()
        let allowed = try await open.send("POST", "/v1/webhooks", token: openKey, json: ["url": "http://127.0.0.1:9/x"])
        #expect(allowed.status == 201, "\(allowed.text)")
        // Private targets allowed or not, a URL must still be one Tidings
        // can call: a port in 1-65535 and no IPv6 zone id.
        for url in ["http://127.0.0.1:0/x", "http://[fe80::1%25eth0]/x", "http://127.0.0.1:65536/x"] {
            let refused = try await open.send("POST", "/v1/webhooks", token: openKey, json: ["url": url])
            #expect(refused.status == 422, "\(url): \(refused.text)")
        }
        // Stored as normalized, like a watch's URL.
        let spelled = try await open.send("POST", "/v1/webhooks", token: openKey, json: ["url": "HTTP://LOCALHOST:80/a/../b"])
        #expect(try spelled.object()["url"] as? String == "http://localhost/b")
    }

    @Test(arguments: [
        (#"{}"#, "url"),
        (#"{"url": null}"#, "url"),
        (#"{"url": 5}"#, "url"),
        (#"{"url": "ftp://93.184.216.34/x"}"#, "url"),
        (#"{"url": "93.184.216.34/x"}"#, "url"),
        (#"{"url": "https://"}"#, "url"),
        (#"{"url": "https://93.184.216.34/a b"}"#, "url"),
        (#"{"url": "https://user:pass@93.184.216.34/x"}"#, "url"),
        (#"{"url": "https://93.184.216.34/\#(String(repeating: "p", count: 2030))"}"#, "url"),
        (#"{"url": "https://93.184.216.34/", "event_types": []}"#, "event_types"),
        (#"{"url": "https://93.184.216.34/", "event_types": ["watch.deleted"]}"#, "event_types"),
        (#"{"url": "https://93.184.216.34/", "event_types": ["watch.changed", "watch.changed"]}"#, "event_types"),
        (#"{"url": "https://93.184.216.34/", "event_types": "watch.changed"}"#, "event_types"),
        (#"{"url": "https://93.184.216.34/", "event_types": null}"#, "event_types"),
        (#"{"url": "https://93.184.216.34/", "event_types": [1]}"#, "event_types"),
        (#"{"url": "https://93.184.216.34/", "description": 5}"#, "description"),
        (#"{"url": "https://93.184.216.34/", "description": "\#(String(repeating: "d", count: 501))"}"#, "description"),
        (#"{"url": "https://93.184.216.34/", "secret": "whsec_mine"}"#, "secret"),
        (#"{"url": "https://93.184.216.34/", "enabled": false}"#, "enabled"),
    ])
    func invalidWebhooksNameTheFieldAndWriteNothing(json: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send("POST", "/v1/webhooks", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422)
        #expect(response.isProblem)
        #expect((try response.object()["detail"] as? String)?.hasPrefix(field) == true, "\(response.text)")
        #expect(try await server.send("GET", "/v1/webhooks", token: key).items().isEmpty, "no partial write")
    }

    @Test(arguments: [
        (#"{"enabled": "no"}"#, "enabled"),
        (#"{"enabled": null}"#, "enabled"),
        (#"{"event_types": null}"#, "event_types"),
        (#"{"url": null}"#, "url"),
        (#"{"description": "new", "event_types": []}"#, "event_types"),
        (#"{"global": true}"#, "global"),
    ])
    func invalidUpdatesNameTheFieldAndChangeNothing(json: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let created = try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.publicURL, "description": "old"])
        let id = try #require(try created.object()["id"] as? String)

        let response = try await server.send("PATCH", "/v1/webhooks/\(id)", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422)
        #expect((try response.object()["detail"] as? String)?.hasPrefix(field) == true, "\(response.text)")
        let webhook = try await server.send("GET", "/v1/webhooks/\(id)", token: key).object()
        #expect(webhook["description"] as? String == "old" && webhook["event_types"] as? [String] == Self.allEventTypes)
        #expect(webhook["enabled"] as? Bool == true)
    }

    @Test func malformedRequestsAndWrongCredentialsAreRejected() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let notJSON = try await server.send("POST", "/v1/webhooks", token: key, rawBody: Array("{\"url\":".utf8))
        #expect(notJSON.status == 400 && notJSON.isProblem)
        let text = try await server.send("POST", "/v1/webhooks", token: key, rawBody: Array(Self.publicURL.utf8), contentType: "text/plain")
        #expect(text.status == 415 && text.isProblem)
        #expect(try await server.send("GET", "/v1/webhooks", token: key).items().isEmpty)

        for (method, path) in [
            ("GET", "/v1/webhooks/1"), ("PATCH", "/v1/webhooks/abc"), ("DELETE", "/v1/webhooks/abc"),
            ("POST", "/v1/webhooks/abc/rotate-secret"), ("POST", "/v1/webhooks/abc/enable"),
        ] {
            let response = try await server.send(method, path, token: key, json: method == "PATCH" ? ["description": "x"] : nil)
            #expect(response.status == 400, "\(method) \(path)")
            #expect((try response.object()["detail"] as? String)?.hasPrefix("id") == true)
        }
        #expect(try await server.send("GET", "/v1/admin/webhooks/abc", token: APITestServer.adminToken).status == 400)
        #expect(try await server.send("POST", "/v1/webhooks", json: ["url": Self.publicURL]).status == 401)
        #expect(try await server.send("GET", "/v1/webhooks?limit=201", token: key).status == 400)
    }

    @Test func listPaginatesInCreationOrderWhileWebhooksAreAdded() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        for index in 0..<5 {
            #expect(
                try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.publicURL, "description": "first-\(index)"])
                    .status == 201)
        }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await server.send("GET", "/v1/webhooks?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: key)
            #expect(page.status == 200)
            seen += try page.items().compactMap { $0["description"] as? String }
            cursor = try page.object()["next_cursor"] as? String
            pages += 1
            if pages == 1 {
                _ = try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.publicURL, "description": "late"])
                _ = try await server.send(
                    "POST", "/v1/admin/webhooks", token: APITestServer.adminToken, json: ["url": Self.publicURL, "description": "global"])
            }
        } while cursor != nil && pages < 10
        #expect(seen == (0..<5).map { "first-\($0)" } + ["late"])
        #expect(pages == 3)
    }
}
