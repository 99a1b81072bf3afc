import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// Per-user limits on watches, webhooks, devices and API keys (migration
/// 0018): the refusal's status and body, that it writes nothing, that an
/// admin can raise and lower them per user, and that concurrent creates
/// never go past them.
@Suite struct UserLimitsAPITests {
    private static let webhookURL = "https://93.184.216.34/hooks/limits"

    // MARK: Helpers

    /// Expects the 403 of a per-user limit naming `limit` and `maximum`.
    private func expectLimitExceeded(
        _ response: APITestServer.Response,
        _ limit: String,
        maximum: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == 403, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.isProblem, sourceLocation: sourceLocation)
        let problem = try response.object()
        #expect(problem["type"] as? String == "urn:tidings:problem:limit-exceeded", sourceLocation: sourceLocation)
        #expect(problem["title"] as? String == "Limit exceeded", sourceLocation: sourceLocation)
        #expect(problem["status"] as? Int == 403, sourceLocation: sourceLocation)
        #expect(problem["limit"] as? String == limit, sourceLocation: sourceLocation)
        #expect(problem["maximum"] as? Int == maximum, sourceLocation: sourceLocation)
        let detail = try #require(problem["detail"] as? String, sourceLocation: sourceLocation)
        #expect(detail.contains("at most \(maximum) ") && detail.contains("(\(limit))"), "\(detail)", sourceLocation: sourceLocation)
    }

    private func setLimits(_ server: APITestServer, user: String, _ limits: [String: Any]) async throws -> [String: Any] {
        let response = try await server.send("PATCH", "/v1/users/\(user)", token: APITestServer.adminToken, json: ["limits": limits])
        #expect(response.status == 200, "\(response.text)")
        return try response.object()
    }

    private func count(_ server: APITestServer, _ sql: PostgresQuery) throws -> Int {
        try server.application.database.query(sql)[0].decode("n", as: Int.self)
    }

    /// Runs `request` `times` times at once and returns the statuses.
    private func concurrently(_ times: Int, _ request: @escaping @Sendable (Int) async throws -> APITestServer.Response) async throws
        -> [Int]
    {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<times {
                group.addTask { try await request(index).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    // MARK: Watches

    @Test func theWatchPastTheLimitIs403AndWritesNothingUntilTheAdminRaisesIt() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key) = try await server.createUser()
        let detail = try await setLimits(server, user: userID, ["watches": 2])
        #expect((detail["limits"] as? [String: Int])?["watches"] == 2)

        _ = try await server.createWatch(token: key, ["url": "https://93.184.215.14/one"])
        _ = try await server.createWatch(token: key, ["url": "https://93.184.215.14/two"])
        let targets = try server.targetCount()
        let refused = try await server.send("POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/three"])
        try expectLimitExceeded(refused, "watches", maximum: 2)
        // Neither the watch nor the target its transaction upserted first.
        #expect(try server.watchCount() == 2)
        #expect(try server.targetCount() == targets)
        #expect(try await server.send("GET", "/v1/watches", token: key).items().count == 2)

        let raised = try await setLimits(server, user: userID, ["watches": 3])
        #expect((raised["limit_overrides"] as? [String: Int]) == ["watches": 3])
        let third = try await server.send("POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/three"])
        #expect(third.status == 201, "\(third.text)")
        try expectLimitExceeded(
            try await server.send("POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/four"]), "watches", maximum: 3
        )

        // Lowering below what the user has removes nothing.
        let lowered = try await setLimits(server, user: userID, ["watches": 1])
        #expect((lowered["usage"] as? [String: Int])?["watches"] == 3)
        #expect(try server.watchCount() == 3)
        try expectLimitExceeded(
            try await server.send("POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/five"]), "watches", maximum: 1
        )
    }

    @Test func theDeploymentDefaultAppliesAndNullGoesBackToIt() async throws {
        let server = try APITestServer { $0.userLimits.watches = 1 }
        defer { server.stop() }
        let (userID, key) = try await server.createUser()
        let other = try await server.createUser()

        _ = try await server.createWatch(token: key, ["url": "https://93.184.215.14/a"])
        try expectLimitExceeded(
            try await server.send("POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/b"]), "watches", maximum: 1)
        // Another user has a limit of its own.
        _ = try await server.createWatch(token: other.key, ["url": "https://93.184.215.14/b"])

        _ = try await setLimits(server, user: userID, ["watches": 5])
        _ = try await server.createWatch(token: key, ["url": "https://93.184.215.14/b"])
        let reset = try await setLimits(server, user: userID, ["watches": NSNull()])
        #expect((reset["limits"] as? [String: Int])?["watches"] == 1)
        #expect((reset["limit_overrides"] as? [String: Int]) == [:])
        try expectLimitExceeded(
            try await server.send("POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/c"]), "watches", maximum: 1)
    }

    @Test func concurrentWatchCreatesNeverGoPastTheLimit() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key) = try await server.createUser()
        _ = try await setLimits(server, user: userID, ["watches": 5])

        // Half the requests share a URL (one target row contended), half not.
        let statuses = try await concurrently(24) { index in
            try await server.send(
                "POST", "/v1/watches", token: key, json: ["url": "https://93.184.215.14/race-\(index % 2 == 0 ? 0 : index)"])
        }
        #expect(statuses.filter { $0 == 201 }.count == 5, "\(statuses)")
        #expect(statuses.filter { $0 == 403 }.count == 19, "\(statuses)")
        #expect(try server.watchCount() == 5)
    }

    // MARK: Webhooks

    @Test func webhooksPastTheLimitAre403AndGlobalOnesAreNotCounted() async throws {
        let server = try APITestServer { $0.userLimits.webhooks = 2 }
        defer { server.stop() }
        let (userID, key) = try await server.createUser()

        for _ in 0..<2 {
            #expect(try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.webhookURL]).status == 201)
        }
        try expectLimitExceeded(
            try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.webhookURL]), "webhooks", maximum: 2)
        #expect(try count(server, "SELECT count(*)::int AS n FROM webhooks WHERE user_id = \(userID)::uuid") == 2)

        for _ in 0..<3 {
            let global = try await server.send(
                "POST", "/v1/admin/webhooks", token: APITestServer.adminToken, json: ["url": Self.webhookURL])
            #expect(global.status == 201, "\(global.text)")
        }
        let shown = try await server.send("GET", "/v1/users/\(userID)", token: APITestServer.adminToken)
        #expect((try shown.object()["usage"] as? [String: Int])?["webhooks"] == 2)
    }

    @Test func concurrentWebhookCreatesNeverGoPastTheLimit() async throws {
        let server = try APITestServer { $0.userLimits.webhooks = 3 }
        defer { server.stop() }
        let (userID, key) = try await server.createUser()
        let statuses = try await concurrently(20) { _ in
            try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.webhookURL])
        }
        #expect(statuses.filter { $0 == 201 }.count == 3, "\(statuses)")
        #expect(statuses.filter { $0 == 403 }.count == 17, "\(statuses)")
        #expect(try count(server, "SELECT count(*)::int AS n FROM webhooks WHERE user_id = \(userID)::uuid") == 3)
    }

    // MARK: Devices

    @Test func aNewTokenPastTheLimitIs403AndAKnownOneStillRegisters() async throws {
        let server = try APITestServer { $0.userLimits.devices = 2 }
        defer { server.stop() }
        let (userID, key) = try await server.createUser()

        for token in ["token-1", "token-2"] {
            #expect(try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": token]).status == 201)
        }
        try expectLimitExceeded(
            try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": "token-3"]), "devices",
            maximum: 2
        )
        // Re-registering is an update: never refused, never counted twice.
        for _ in 0..<3 {
            let again = try await server.send(
                "POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": "token-1", "name": "again"])
            #expect(again.status == 200, "\(again.text)")
        }
        let shown = try await server.send("GET", "/v1/users/\(userID)", token: APITestServer.adminToken)
        #expect((try shown.object()["usage"] as? [String: Int])?["devices"] == 2)

        // Zero: no new device at all, known ones still refresh.
        _ = try await setLimits(server, user: userID, ["devices": 0])
        try expectLimitExceeded(
            try await server.send("POST", "/v1/devices", token: key, json: ["platform": "android", "push_token": "token-4"]), "devices",
            maximum: 0
        )
        #expect(try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": "token-2"]).status == 200)
        // Deleting one makes room again under the deployment's limit.
        _ = try await setLimits(server, user: userID, ["devices": NSNull()])
        let id = try #require(try await server.send("GET", "/v1/devices", token: key).items().first?["id"] as? String)
        #expect(try await server.send("DELETE", "/v1/devices/\(id)", token: key).status == 204)
        #expect(try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": "token-3"]).status == 201)
    }

    /// Concurrent registrations are committed in group-commit batches of
    /// many users (`register_devices`): a batch that goes past one user's
    /// limit is run again one registration at a time, so exactly the
    /// registrations past the limit are refused and other users' go through.
    @Test func concurrentRegistrationsInBatchesNeverGoPastTheLimit() async throws {
        let server = try APITestServer { $0.userLimits.devices = 5 }
        defer { server.stop() }
        let (limitedID, limited) = try await server.createUser()
        let (otherID, other) = try await server.createUser()
        // Two known tokens: their re-registrations are updates.
        for token in ["known-1", "known-2"] {
            #expect(
                try await server.send("POST", "/v1/devices", token: limited, json: ["platform": "ios", "push_token": token]).status == 201)
        }

        let responses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
            for index in 0..<36 {
                group.addTask {
                    let kind = ["new", "known", "other"][index % 3]
                    let (key, token) =
                        switch kind {
                        case "new": (limited, "new-\(index)")
                        case "known": (limited, "known-\(index % 2 + 1)")
                        default: (other, "other-\(index % 4)")
                        }
                    let response = try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": token])
                    return (kind, response.status)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let new = responses.filter { $0.0 == "new" }.map(\.1)
        #expect(new.filter { $0 == 201 }.count == 3, "three new devices fit beside the two known ones: \(new)")
        #expect(new.filter { $0 == 403 }.count == 9, "\(new)")
        #expect(responses.filter { $0.0 == "known" }.allSatisfy { $0.1 == 200 }, "\(responses)")
        #expect(responses.filter { $0.0 == "other" }.allSatisfy { $0.1 == 200 || $0.1 == 201 }, "\(responses)")
        #expect(try count(server, "SELECT count(*)::int AS n FROM devices WHERE user_id = \(limitedID)::uuid") == 5)
        #expect(try count(server, "SELECT count(*)::int AS n FROM devices WHERE user_id = \(otherID)::uuid") == 4)
    }

    // MARK: API keys

    @Test func activeKeysPastTheLimitAre403AndRevokingMakesRoom() async throws {
        let server = try APITestServer { $0.userLimits.apiKeys = 2 }
        defer { server.stop() }
        let (userID, firstKey) = try await server.createUser()
        let issue = { try await server.send("POST", "/v1/users/\(userID)/keys", token: APITestServer.adminToken, json: ["name": "ci"]) }

        #expect(try await issue().status == 201)
        try expectLimitExceeded(try await issue(), "api_keys", maximum: 2)
        #expect(try count(server, "SELECT count(*)::int AS n FROM api_keys WHERE user_id = \(userID)::uuid") == 2)

        let keys = try await server.send("GET", "/v1/users/\(userID)/keys", token: APITestServer.adminToken).items()
        let keyID = try #require(keys.first?["id"] as? String)
        #expect(try await server.send("DELETE", "/v1/users/\(userID)/keys/\(keyID)", token: APITestServer.adminToken).status == 200)
        #expect(try await server.send("GET", "/v1/me", token: firstKey).status == 401)
        #expect(try await issue().status == 201, "a revoked key does not count")
        try expectLimitExceeded(try await issue(), "api_keys", maximum: 2)
        let shown = try await server.send("GET", "/v1/users/\(userID)", token: APITestServer.adminToken).object()
        #expect((shown["usage"] as? [String: Int])?["api_keys"] == 2)
    }

    @Test func concurrentKeyIssuesNeverGoPastTheLimit() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, _) = try await server.createUser()
        _ = try await setLimits(server, user: userID, ["api_keys": 4])
        let statuses = try await concurrently(16) { _ in
            try await server.send("POST", "/v1/users/\(userID)/keys", token: APITestServer.adminToken, json: ["name": "race"])
        }
        #expect(statuses.filter { $0 == 201 }.count == 3, "\(statuses)")
        #expect(statuses.filter { $0 == 403 }.count == 13, "\(statuses)")
        #expect(try count(server, "SELECT count(*)::int AS n FROM api_keys WHERE user_id = \(userID)::uuid") == 4)
    }

    // MARK: The admin API

    @Test func theAdminSeesEffectiveLimitsOverridesAndUsage() async throws {
        let server = try APITestServer { $0.userLimits.webhooks = 7 }
        defer { server.stop() }
        let (userID, key) = try await server.createUser("Ada")
        _ = try await server.createWatch(token: key, ["url": "https://93.184.215.14/a"])
        #expect(try await server.send("POST", "/v1/devices", token: key, json: ["platform": "ios", "push_token": "t"]).status == 201)

        let shown = try await server.send("GET", "/v1/users/\(userID)", token: APITestServer.adminToken)
        #expect(shown.status == 200)
        let user = try shown.object()
        #expect(user["id"] as? String == userID && user["name"] as? String == "Ada" && user["created_at"] is String)
        #expect(user["limits"] as? [String: Int] == ["watches": 1000, "webhooks": 7, "devices": 100, "api_keys": 10])
        #expect(user["limit_overrides"] as? [String: Int] == [:])
        #expect(user["usage"] as? [String: Int] == ["watches": 1, "webhooks": 0, "devices": 1, "api_keys": 1])

        let patched = try await setLimits(server, user: userID, ["watches": 5000, "api_keys": 0, "devices": 1_000_000])
        #expect(patched["limits"] as? [String: Int] == ["watches": 5000, "webhooks": 7, "devices": 1_000_000, "api_keys": 0])
        #expect(patched["limit_overrides"] as? [String: Int] == ["watches": 5000, "devices": 1_000_000, "api_keys": 0])
        // Left out: unchanged; an empty object changes nothing.
        let partly = try await setLimits(server, user: userID, ["api_keys": NSNull()])
        #expect(partly["limit_overrides"] as? [String: Int] == ["watches": 5000, "devices": 1_000_000])
        let nothing = try await server.send("PATCH", "/v1/users/\(userID)", token: APITestServer.adminToken, json: [String: Any]())
        #expect(try nothing.object()["limit_overrides"] as? [String: Int] == ["watches": 5000, "devices": 1_000_000])
        // The list keeps its short form.
        let listed = try await server.send("GET", "/v1/users", token: APITestServer.adminToken).items()
        #expect(listed.first?["limits"] == nil)
    }

    @Test func onlyTheAdminSetsLimitsOfUsersThatExist() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key) = try await server.createUser()
        let asUser = try await server.send("PATCH", "/v1/users/\(userID)", token: key, json: ["limits": ["watches": 1_000_000]])
        #expect(asUser.status == 403)
        #expect(try await server.send("PATCH", "/v1/users/\(userID)", json: ["limits": ["watches": 1]]).status == 401)
        let missing = try await server.send(
            "PATCH", "/v1/users/\(UUID().uuidString.lowercased())", token: APITestServer.adminToken, json: ["limits": ["watches": 1]])
        #expect(missing.status == 404 && missing.isProblem)
        #expect(try await server.send("GET", "/v1/users/\(UUID().uuidString.lowercased())", token: APITestServer.adminToken).status == 404)
    }

    /// Hostile values: each is a 422 naming the field, and nothing changes.
    /// One server for all of them.
    @Test func hostileLimitsAre422NamingTheField() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, _) = try await server.createUser()
        let cases = [
            (#"{"limits": {"watches": -1}}"#, "limits.watches"),
            (#"{"limits": {"webhooks": 1000001}}"#, "limits.webhooks"),
            (#"{"limits": {"devices": 1.5}}"#, "limits.devices"),
            (#"{"limits": {"api_keys": 1e30}}"#, "limits.api_keys"),
            (#"{"limits": {"watches": 99999999999999999999999}}"#, "limits.watches"),
            (#"{"limits": {"watches": -9223372036854775808}}"#, "limits.watches"),
            (#"{"limits": {"watches": "5"}}"#, "limits.watches"),
            (#"{"limits": {"watches": true}}"#, "limits.watches"),
            (#"{"limits": {"watches": [5]}}"#, "limits.watches"),
            (#"{"limits": {"watches": 5, "changes": 5}}"#, "limits.changes"),
            (#"{"limits": null}"#, "limits"),
            (#"{"limits": [1, 2]}"#, "limits"),
            (#"{"limits": 5}"#, "limits"),
            (#"{"name": "Mallory"}"#, "name"),
        ]
        for (body, field) in cases {
            let response = try await server.send("PATCH", "/v1/users/\(userID)", token: APITestServer.adminToken, rawBody: Array(body.utf8))
            #expect(response.status == 422, "\(body): \(response.text)")
            #expect(response.isProblem)
            #expect(try response.object()["field"] as? String == field, "\(body): \(response.text)")
        }
        let shown = try await server.send("GET", "/v1/users/\(userID)", token: APITestServer.adminToken).object()
        #expect(shown["limit_overrides"] as? [String: Int] == [:], "no case changed anything")
        #expect(try await server.send("GET", "/healthz").status == 200)
    }
}
