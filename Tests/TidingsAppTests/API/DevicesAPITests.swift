import Foundation
import Testing
import TidingsApp
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

@Suite struct DevicesAPITests {
    @Test func registerShowUpdateAndDelete() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let registered = try await server.send(
            "POST", "/v1/devices", token: key,
            json: [
                "platform": "ios", "push_token": "apns-token-1", "app_id": "com.example.tidings", "name": "Ada's phone", "locale": "en-GB",
            ])
        #expect(registered.status == 201, "\(registered.text)")
        let device = try registered.object()
        let id = try #require(device["id"] as? String)
        #expect(device["platform"] as? String == "ios")
        #expect(device["push_token"] as? String == "apns-token-1")
        #expect(device["app_id"] as? String == "com.example.tidings")
        #expect(device["name"] as? String == "Ada's phone")
        #expect(device["locale"] as? String == "en-GB")
        #expect(
            device["last_seen_at"] as? String != nil && device["created_at"] as? String != nil && device["updated_at"] as? String != nil)

        let shown = try await server.send("GET", "/v1/devices/\(id)", token: key)
        #expect(shown.status == 200)
        #expect(try shown.object()["push_token"] as? String == "apns-token-1")

        let updated = try await server.send("PATCH", "/v1/devices/\(id)", token: key, json: ["name": "Work phone", "locale": NSNull()])
        #expect(updated.status == 200, "\(updated.text)")
        let changed = try updated.object()
        #expect(changed["name"] as? String == "Work phone")
        #expect(changed["locale"] is NSNull, "null clears an optional field")
        #expect(changed["app_id"] as? String == "com.example.tidings", "absent fields stay")
        #expect(changed["platform"] as? String == "ios")

        let unchanged = try await server.send("PATCH", "/v1/devices/\(id)", token: key, json: [String: Any]())
        #expect(unchanged.status == 200)
        #expect(try unchanged.object()["name"] as? String == "Work phone")

        let list = try await server.send("GET", "/v1/devices", token: key)
        #expect(try list.items().map { $0["id"] as? String } == [id])
        #expect(try list.object()["next_cursor"] is NSNull)

        #expect(try await server.send("DELETE", "/v1/devices/\(id)", token: key).status == 204)
        #expect(try await server.send("GET", "/v1/devices/\(id)", token: key).status == 404)
        #expect(try await server.send("DELETE", "/v1/devices/\(id)", token: key).status == 404)
    }

    @Test func registeringTheSameTokenAgainUpdatesTheSameDevice() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key) = try await server.createUser()

        let first = try await server.send(
            "POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": "fcm:abc", "name": "Pixel"])
        #expect(first.status == 201)
        let original = try first.object()
        let again = try await server.send(
            "POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": "fcm:abc", "locale": "de"])
        #expect(again.status == 200, "\(again.text)")
        let refreshed = try again.object()
        #expect(refreshed["id"] as? String == original["id"] as? String)
        #expect(refreshed["locale"] as? String == "de")
        #expect(refreshed["name"] as? String == "Pixel", "fields left out of a re-registration keep their values")
        #expect(refreshed["created_at"] as? String == original["created_at"] as? String)

        #expect(try await server.send("GET", "/v1/devices", token: key).items().count == 1)
        // In the database: JSON timestamps stop at milliseconds, two requests may share one.
        let rows = try server.application.database.query(
            """
            SELECT count(*) AS n, bool_and(last_seen_at > created_at) AS refreshed
            FROM devices WHERE user_id = \(try #require(UUID(uuidString: userID)))
            """)
        #expect(try rows[0].decode("n", as: Int.self) == 1)
        #expect(try rows[0].decode("refreshed", as: Bool.self), "last_seen_at moves on re-registration")
    }

    @Test func longestPushTokensRegisterAndUpsert() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        // Random, so it does not compress below the B-tree entry limit.
        let token = String((0..<4096).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".randomElement()! })

        let first = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": token])
        #expect(first.status == 201, "\(first.text)")
        let second = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": token])
        #expect(second.status == 200)
        #expect(try second.object()["id"] as? String == first.object()["id"] as? String)
        let removed = try await server.send("POST", "/v1/devices/invalidations", token: key, json: ["push_tokens": [token]])
        #expect(try #require(try removed.object()["removed"] as? [[String: Any]]).count == 1)
    }

    @Test func invalidationsRemoveOnlyTheCallersReportedTokens() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, alice) = try await server.createUser()
        let (_, bob) = try await server.createUser()
        for token in ["dead-1", "dead-2", "alive"] {
            #expect(
                try await server.send("POST", "/v1/devices", token: alice, json: ["platform": "ios", "push_token": token]).status == 201)
        }
        // The same token on another platform is another device, Bob's.
        #expect(
            try await server.send("POST", "/v1/devices", token: bob, json: ["platform": "android", "push_token": "dead-1"]).status == 201)

        let response = try await server.send(
            "POST", "/v1/devices/invalidations", token: alice,
            json: [
                "push_tokens": ["dead-2", "dead-1", "never-registered", "dead-1"]
            ])
        #expect(response.status == 200, "\(response.text)")
        let removed = try #require(try response.object()["removed"] as? [[String: Any]])
        #expect(removed.compactMap { $0["push_token"] as? String } == ["dead-1", "dead-2"], "in creation order, each once")
        #expect(removed.allSatisfy { $0["id"] is String && $0["platform"] as? String == "ios" })

        #expect(try await server.send("GET", "/v1/devices", token: alice).items().compactMap { $0["push_token"] as? String } == ["alive"])
        #expect(try await server.send("GET", "/v1/devices", token: bob).items().compactMap { $0["push_token"] as? String } == ["dead-1"])

        let nothing = try await server.send("POST", "/v1/devices/invalidations", token: alice, json: ["push_tokens": ["dead-1"]])
        #expect(nothing.status == 200)
        #expect(try #require(try nothing.object()["removed"] as? [Any]).isEmpty)
    }

    @Test func usersNeverReachEachOthersDevices() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, alice) = try await server.createUser()
        let (_, bob) = try await server.createUser()
        let registered = try await server.send(
            "POST", "/v1/devices", token: alice, json: ["platform": "ios", "push_token": "shared-token", "name": "Alice"])
        let id = try #require(try registered.object()["id"] as? String)

        #expect(try await server.send("GET", "/v1/devices/\(id)", token: bob).status == 404)
        let patch = try await server.send("PATCH", "/v1/devices/\(id)", token: bob, json: ["name": "Bob"])
        #expect(patch.status == 404 && patch.isProblem)
        #expect(try await server.send("DELETE", "/v1/devices/\(id)", token: bob).status == 404)
        #expect(try await server.send("GET", "/v1/devices", token: bob).items().isEmpty)
        let invalidated = try await server.send("POST", "/v1/devices/invalidations", token: bob, json: ["push_tokens": ["shared-token"]])
        #expect(try #require(try invalidated.object()["removed"] as? [Any]).isEmpty)

        let alicesDevice = try await server.send("GET", "/v1/devices/\(id)", token: alice)
        #expect(try alicesDevice.object()["name"] as? String == "Alice")
    }

    /// A phone signing in to another account: the token moves, the previous
    /// owner's device goes and that owner hears of it as device.invalidated.
    @Test func aTokenRegisteredByAnotherUserMovesToIt() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (aliceID, alice) = try await server.createUser()
        let (_, bob) = try await server.createUser()
        let (_, carol) = try await server.createUser()
        let registered = try await server.send(
            "POST", "/v1/devices", token: alice,
            json: [
                "platform": "ios", "push_token": "shared-token", "app_id": "com.example.a", "name": "Alice",
            ])
        let id = try #require(try registered.object()["id"] as? String)
        // Another app, or another platform, is another device.
        let (_, dave) = try await server.createUser()
        for (key, platform, app) in [(carol, "ios", "com.example.b"), (dave, "android", "com.example.a")] {
            let other = try await server.send(
                "POST", "/v1/devices", token: key, json: ["platform": platform, "push_token": "shared-token", "app_id": app])
            #expect(other.status == 201)
        }
        #expect(try await server.send("GET", "/v1/devices/\(id)", token: alice).status == 200)

        let bobs = try await server.send(
            "POST", "/v1/devices", token: bob, json: ["platform": "ios", "push_token": "shared-token", "app_id": "com.example.a"])
        #expect(bobs.status == 201, "\(bobs.text)")
        #expect(try bobs.object()["id"] as? String != id)
        #expect(try await server.send("GET", "/v1/devices/\(id)", token: alice).status == 404)
        #expect(try await server.send("GET", "/v1/devices", token: alice).items().isEmpty)
        #expect(try await server.send("GET", "/v1/devices", token: bob).items().count == 1)
        #expect(try await server.send("GET", "/v1/devices", token: carol).items().count == 1)
        #expect(try await server.send("GET", "/v1/devices", token: dave).items().count == 1)

        let event = try server.application.database.query(
            """
            SELECT user_id, data->>'device_id' AS device, data->>'reason' AS reason, data->>'app_id' AS app
            FROM events WHERE type = 'device.invalidated'
            """
        ).single()
        #expect(try event.decode("user_id", as: UUID.self) == UUID(uuidString: aliceID))
        #expect(try event.decode("device", as: String.self) == id)
        #expect(try event.decode("app", as: String.self) == "com.example.a")
        #expect(try event.decode("reason", as: String.self) == "push token registered by another user")
    }

    /// Moving a device to the app under which another user holds its token
    /// (PATCH app_id) moves the token too.
    @Test func anEditThatTakesAnotherUsersTokenMovesIt() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, alice) = try await server.createUser()
        let (_, bob) = try await server.createUser()
        let alices = try await server.send(
            "POST", "/v1/devices", token: alice, json: ["platform": "android", "push_token": "fcm:t", "app_id": "com.example.a"])
        let aliceDevice = try #require(try alices.object()["id"] as? String)
        let bobs = try await server.send(
            "POST", "/v1/devices", token: bob, json: ["platform": "android", "push_token": "fcm:t", "app_id": "com.example.b"])
        let bobDevice = try #require(try bobs.object()["id"] as? String)

        let moved = try await server.send("PATCH", "/v1/devices/\(bobDevice)", token: bob, json: ["app_id": "com.example.a"])
        #expect(moved.status == 200, "\(moved.text)")
        #expect(try await server.send("GET", "/v1/devices/\(aliceDevice)", token: alice).status == 404)
        let count = try server.application.database.query("SELECT count(*) AS n FROM events WHERE type = 'device.invalidated'").single()
        #expect(try count.decode("n", as: Int.self) == 1)
    }

    /// Two users registering one token at once, many times over: each
    /// round ends with exactly one device holding it, whoever came last.
    @Test func concurrentRegistrationsOfOneTokenLeaveOneDevice() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let users = [try await server.createUser().key, try await server.createUser().key]
        for round in 0..<20 {
            let token = "race-\(round)"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for key in users {
                    group.addTask {
                        try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": token]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == [201, 201], "round \(round): \(statuses)")
            let holders = try server.application.database.query("SELECT count(*) AS n FROM devices WHERE push_token = \(token)").single()
            #expect(try holders.decode("n", as: Int.self) == 1, "round \(round)")
        }
        let moved = try server.application.database.query("SELECT count(*) AS n FROM events WHERE type = 'device.invalidated'").single()
        #expect(try moved.decode("n", as: Int.self) == 20, "each round's first device was announced as it went")
    }

    @Test(arguments: [
        (#"{"push_token": "t"}"#, "platform"),
        (#"{"platform": "windows", "push_token": "t"}"#, "platform"),
        (#"{"platform": 1, "push_token": "t"}"#, "platform"),
        (#"{"platform": "ios"}"#, "push_token"),
        (#"{"platform": "ios", "push_token": ""}"#, "push_token"),
        (#"{"platform": "ios", "push_token": null}"#, "push_token"),
        (#"{"platform": "ios", "push_token": ["t"]}"#, "push_token"),
        (#"{"platform": "ios", "push_token": "\#(String(repeating: "x", count: 4097))"}"#, "push_token"),
        (#"{"platform": "ios", "push_token": "t", "app_id": 7}"#, "app_id"),
        (#"{"platform": "ios", "push_token": "t", "name": "\#(String(repeating: "n", count: 201))"}"#, "name"),
        (#"{"platform": "ios", "push_token": "t", "locale": "e"}"#, "locale"),
        (#"{"platform": "ios", "push_token": "t", "locale": "en US"}"#, "locale"),
        (#"{"platform": "ios", "push_token": "t", "locale": "\#(String(repeating: "a", count: 36))"}"#, "locale"),
        (#"{"platform": "ios", "push_token": "t", "user_id": "x"}"#, "user_id"),
    ])
    func invalidRegistrationsNameTheFieldAndWriteNothing(json: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send("POST", "/v1/devices", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422)
        #expect(response.isProblem)
        #expect((try response.object()["detail"] as? String)?.hasPrefix(field) == true, "\(response.text)")
        #expect(try await server.send("GET", "/v1/devices", token: key).items().isEmpty, "no partial write")
    }

    @Test(arguments: [
        (#"{"platform": null}"#, "platform"),
        (#"{"platform": "blackberry"}"#, "platform"),
        (#"{"push_token": "other"}"#, "push_token"),
        (#"{"name": "New", "locale": "x"}"#, "locale"),
        (#"{"name": ""}"#, "name"),
        (#"{"app_id": false}"#, "app_id"),
    ])
    func invalidUpdatesNameTheFieldAndChangeNothing(json: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let registered = try await server.send(
            "POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": "t", "name": "Old"])
        let id = try #require(try registered.object()["id"] as? String)

        let response = try await server.send("PATCH", "/v1/devices/\(id)", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422)
        #expect((try response.object()["detail"] as? String)?.hasPrefix(field) == true, "\(response.text)")
        let device = try await server.send("GET", "/v1/devices/\(id)", token: key).object()
        #expect(device["name"] as? String == "Old" && device["push_token"] as? String == "t" && device["platform"] as? String == "ios")
        #expect(device["updated_at"] as? String == (try registered.object()["updated_at"] as? String))
    }

    @Test(arguments: [
        #"{}"#,
        #"{"push_tokens": []}"#,
        #"{"push_tokens": "t"}"#,
        #"{"push_tokens": ["t", 5]}"#,
        #"{"push_tokens": [""]}"#,
        #"{"push_tokens": ["t"], "all": true}"#,
    ])
    func invalidInvalidationsAreRejected(json: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        #expect(try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": "t"]).status == 201)

        let response = try await server.send("POST", "/v1/devices/invalidations", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422)
        let detail = try #require(try response.object()["detail"] as? String)
        #expect(detail.hasPrefix("push_tokens") || detail.hasPrefix("all"), "\(detail)")
        #expect(try await server.send("GET", "/v1/devices", token: key).items().count == 1, "nothing removed")
    }

    @Test func tooManyInvalidatedTokensAreRejected() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send(
            "POST", "/v1/devices/invalidations", token: key, json: ["push_tokens": (0...1000).map { "t\($0)" }])
        #expect(response.status == 422)
        #expect((try response.object()["detail"] as? String)?.hasPrefix("push_tokens: must list 1 to 1000") == true, "\(response.text)")
        let most = try await server.send(
            "POST", "/v1/devices/invalidations", token: key, json: ["push_tokens": (0..<1000).map { "t\($0)" }])
        #expect(most.status == 200)
    }

    @Test func malformedRequestsAndWrongCredentialsAreRejected() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let notJSON = try await server.send("POST", "/v1/devices", token: key, rawBody: Array(#"{"platform": "ios","#.utf8))
        #expect(notJSON.status == 400 && notJSON.isProblem)
        let form = try await server.send(
            "POST", "/v1/devices", token: key, rawBody: Array("platform=ios".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(form.status == 415 && form.isProblem)
        let notAnObject = try await server.send("POST", "/v1/devices", token: key, rawBody: Array("[1]".utf8))
        #expect(notAnObject.status == 422)
        let fraction = try await server.send(
            "POST", "/v1/devices/invalidations", token: key, rawBody: Array("{\"push_tokens\": [1.5]}".utf8))
        #expect(fraction.status == 422)

        for (method, path) in [("GET", "/v1/devices/42"), ("PATCH", "/v1/devices/not-a-uuid"), ("DELETE", "/v1/devices/x")] {
            let response = try await server.send(method, path, token: key, json: method == "PATCH" ? ["name": "x"] : nil)
            #expect(response.status == 400, "\(method) \(path)")
            #expect((try response.object()["detail"] as? String)?.hasPrefix("id") == true)
        }

        #expect(try await server.send("GET", "/v1/devices").status == 401)
        #expect(try await server.send("GET", "/v1/devices", token: APITestServer.adminToken).status == 403)
        #expect(
            try await server.send("POST", "/v1/devices", token: APITestServer.adminToken, json: ["platform": "ios", "push_token": "t"])
                .status == 403)
        #expect(try await server.send("GET", "/v1/devices?limit=0", token: key).status == 400)
        #expect(try await server.send("GET", "/v1/devices?cursor=nope", token: key).status == 400)
        #expect(try await server.send("PUT", "/v1/devices", token: key).status == 405)
    }

    @Test func listPaginatesInCreationOrderWhileDevicesAreAdded() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let (_, other) = try await server.createUser()
        for index in 0..<7 {
            #expect(
                try await server.send("POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": "first-\(index)"])
                    .status == 201)
        }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await server.send("GET", "/v1/devices?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""), token: key)
            #expect(page.status == 200)
            seen += try page.items().compactMap { $0["push_token"] as? String }
            cursor = try page.object()["next_cursor"] as? String
            pages += 1
            // Rows created while paging appear after the ones already listed.
            if pages == 1 {
                _ = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": "late"])
                _ = try await server.send("POST", "/v1/devices", token: other, json: ["platform": "android", "push_token": "someone-else"])
            }
        } while cursor != nil && pages < 10
        #expect(seen == (0..<7).map { "first-\($0)" } + ["late"])
        #expect(pages == 3)
    }

    @Test func pushTokensNeverReachTheLogs() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let token = "secret-looking-push-token-\(UUID().uuidString)"
        let registered = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": token])
        let id = try #require(try registered.object()["id"] as? String)
        _ = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": token])
        _ = try await server.send("POST", "/v1/devices/invalidations", token: key, json: ["push_tokens": [token]])
        let log = server.logSink.lines.joined(separator: "\n")
        #expect(!log.contains(token))
        #expect(log.contains("device registered") && log.contains(id))
        #expect(log.contains("devices invalidated"))
    }

    @Test func unknownFieldsAreRejectedNamingTheFirstInAlphabeticalOrder() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let response = try await server.send(
            "POST", "/v1/devices", token: key,
            json: [
                "platform": "ios", "push_token": "t", "zeta": 1, "alpha": 2,
            ])
        #expect(response.status == 422)
        #expect(try response.object()["detail"] as? String == "alpha: is not a known field")
    }
}
