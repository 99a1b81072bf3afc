import Foundation
import Testing
import TidingsObservability
import TidingsTestSupport

@Suite struct AccountsAPITests {
    @Test func adminCreatesUserWhoSeesItself() async throws {
        let server = try APITestServer()
        defer { server.stop() }

        let created = try await server.send(
            "POST", "/v1/users", token: APITestServer.adminToken, json: ["name": "Ada", "key_name": "laptop"])
        #expect(created.status == 201)
        let body = try created.object()
        let user = try #require(body["user"] as? [String: Any])
        let apiKey = try #require(body["api_key"] as? String)
        #expect(user["name"] as? String == "Ada")
        #expect(apiKey.hasPrefix("tdg_") && apiKey.count == 60)
        let key = try #require(body["key"] as? [String: Any])
        #expect(apiKey.hasPrefix(try #require(key["prefix"] as? String)))
        #expect(key["name"] as? String == "laptop")

        let me = try await server.send("GET", "/v1/me", token: apiKey)
        #expect(me.status == 200)
        #expect(try me.object()["id"] as? String == user["id"] as? String)
        #expect(try me.object()["name"] as? String == "Ada")
    }

    @Test func missingUnknownAndWrongKindOfCredentials() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let anonymous = try await server.send("GET", "/v1/me")
        #expect(anonymous.status == 401)
        #expect(anonymous.isProblem)
        #expect(anonymous.header("www-authenticate")?.hasPrefix("Bearer") == true)

        let unknown = try await server.send("GET", "/v1/me", token: "tdg_000000000000_" + String(repeating: "A", count: 43))
        #expect(unknown.status == 401)
        #expect(try await server.send("GET", "/v1/me", token: "garbage").status == 401)

        let adminAsUser = try await server.send("GET", "/v1/me", token: APITestServer.adminToken)
        #expect(adminAsUser.status == 403)
        #expect(adminAsUser.isProblem)

        let userAsAdmin = try await server.send("GET", "/v1/users", token: key)
        #expect(userAsAdmin.status == 403)
        let userCreatesUser = try await server.send("POST", "/v1/users", token: key, json: ["name": "Mallory"])
        #expect(userCreatesUser.status == 403)
    }

    @Test func revocationTakesEffectImmediately() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, firstKey) = try await server.createUser()

        let issued = try await server.send("POST", "/v1/users/\(userID)/keys", token: APITestServer.adminToken, json: ["name": "ci"])
        #expect(issued.status == 201)
        let secondKey = try #require(try issued.object()["api_key"] as? String)
        #expect(try await server.send("GET", "/v1/me", token: secondKey).status == 200)

        let keys = try await server.send("GET", "/v1/users/\(userID)/keys", token: APITestServer.adminToken)
        #expect(try keys.items().count == 2)
        #expect(!keys.text.contains(firstKey) && !keys.text.contains(secondKey), "secrets never appear again")
        let firstKeyID = try #require(try keys.items().first?["id"] as? String)

        let revoked = try await server.send("DELETE", "/v1/users/\(userID)/keys/\(firstKeyID)", token: APITestServer.adminToken)
        #expect(revoked.status == 200)
        #expect(try revoked.object()["revoked_at"] as? String != nil)
        #expect(try await server.send("GET", "/v1/me", token: firstKey).status == 401)
        #expect(try await server.send("GET", "/v1/me", token: secondKey).status == 200)
    }

    @Test func deletingAUserInvalidatesItsKeys() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key) = try await server.createUser()

        #expect(try await server.send("DELETE", "/v1/users/\(userID)", token: APITestServer.adminToken).status == 204)
        #expect(try await server.send("GET", "/v1/me", token: key).status == 401)
        #expect(try await server.send("GET", "/v1/users/\(userID)", token: APITestServer.adminToken).status == 404)
        #expect(try await server.send("DELETE", "/v1/users/\(userID)", token: APITestServer.adminToken).status == 404)
    }

    @Test func userListPaginatesInCreationOrderUnderConcurrentInserts() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        for index in 0..<7 {
            _ = try await server.createUser("first-\(index)")
        }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = "/v1/users?limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try await server.send("GET", query, token: APITestServer.adminToken)
            #expect(page.status == 200)
            seen += try page.items().compactMap { $0["name"] as? String }
            cursor = try page.object()["next_cursor"] as? String
            pages += 1
            // Rows created while paging appear after the ones already listed.
            if pages == 1 { _ = try await server.createUser("late") }
        } while cursor != nil && pages < 10
        #expect(Array(seen.prefix(7)) == (0..<7).map { "first-\($0)" })
        #expect(seen.last == "late")
        #expect(seen.count == 8 && Set(seen).count == 8)
    }

    @Test(arguments: [
        (#"{"name": ""}"#, "name"),
        (#"{"name": 5}"#, "name"),
        (#"{}"#, "name"),
        (#"{"name": "ok", "admin": true}"#, "admin"),
        (#"{"name": "ok", "key_name": "\u0007"}"#, "key_name"),
        (#"{"name": "ok", "key_name": null}"#, "key_name"),
    ])
    func invalidBodiesNameTheField(json: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let response = try await server.send("POST", "/v1/users", token: APITestServer.adminToken, rawBody: Array(json.utf8))
        #expect(response.status == 422)
        #expect(response.isProblem)
        #expect((try response.object()["detail"] as? String)?.hasPrefix(field) == true, "\(response.text)")
        let list = try await server.send("GET", "/v1/users", token: APITestServer.adminToken)
        #expect(try list.items().isEmpty, "no partial write")
    }

    @Test func malformedRequestsAreRejectedClearly() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let notJSON = try await server.send("POST", "/v1/users", token: APITestServer.adminToken, rawBody: Array("{name:".utf8))
        #expect(notJSON.status == 400 && notJSON.isProblem)
        let wrongType = try await server.send(
            "POST", "/v1/users", token: APITestServer.adminToken, rawBody: Array("name=x".utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(wrongType.status == 415 && wrongType.isProblem)
        let badID = try await server.send("GET", "/v1/users/not-a-uuid", token: APITestServer.adminToken)
        #expect(badID.status == 400)
        #expect((try badID.object()["detail"] as? String)?.hasPrefix("id") == true)
        let badLimit = try await server.send("GET", "/v1/users?limit=500", token: APITestServer.adminToken)
        #expect(badLimit.status == 400)
        let badCursor = try await server.send("GET", "/v1/users?cursor=%%%", token: APITestServer.adminToken)
        #expect(badCursor.status == 400)
    }

    @Test func secretsNeverReachTheLogs() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        _ = try await server.send("GET", "/v1/me", token: key)
        let log = server.logSink.lines.joined(separator: "\n")
        #expect(!log.contains(key))
        #expect(!log.contains(APITestServer.adminToken))
        #expect(log.contains("user created"))
    }
}
