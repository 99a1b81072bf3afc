import Foundation
import Testing
@testable import TidingsApp
import TidingsPostgres

/// `POST /v1/watches/{id}/check` and webhook test events are rate limited
/// per watch or webhook and per user: past a limit, 429 with `Retry-After`
/// and nothing fetched or queued. The buckets' timing is unit-tested on a
/// made-up clock (TokenBucketTests, RateLimiterTests); these run on the real
/// clock, with periods of an hour: a check can take many seconds on a
/// loaded machine, and no token may come back meanwhile.
@Suite struct RateLimitsAPITests {
    /// A closed loopback port: test deliveries to it fail without leaving the machine.
    private static let receiverURL = "http://127.0.0.1:9/hook"

    /// Expects a 429 naming `limit`, with a `Retry-After` of whole seconds
    /// from 1 to `atMost`; returns it.
    @discardableResult
    private func expectRateLimited(
        _ response: APITestServer.Response,
        _ limit: String,
        atMost: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        #expect(response.status == 429, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.isProblem, sourceLocation: sourceLocation)
        let header = try #require(response.header("Retry-After"), sourceLocation: sourceLocation)
        let seconds = try #require(Int(header), "Retry-After \(header) is not whole seconds", sourceLocation: sourceLocation)
        #expect((1...atMost).contains(seconds), "Retry-After \(seconds)", sourceLocation: sourceLocation)
        let problem = try response.object()
        #expect(problem["type"] as? String == "urn:tidings:problem:rate-limited", sourceLocation: sourceLocation)
        #expect(problem["limit"] as? String == limit, sourceLocation: sourceLocation)
        #expect(problem["retry_after"] as? Int == seconds, sourceLocation: sourceLocation)
        return seconds
    }

    private func deliveries(_ server: APITestServer, webhook id: String) throws -> Int {
        try server.application.database.query("SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = \(id)::uuid")[0]
            .decode("n", as: Int.self)
    }

    @Test func aThirdCheckOfOneWatchAtOnceIs429AndFetchesNothing() async throws {
        // A burst of two per watch, like the default, then one every 30 min.
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.checkNowRate = RatePolicy(count: 2, per: .seconds(3600))
        }
        defer { server.shutdown() }
        let owner = try await server.createUser()
        let watch = try await server.createWatch(token: owner.key, ["url": "http://127.0.0.1:\(server.application.port)/healthz"])
        let id = try #require(watch["id"] as? String)

        for _ in 0..<2 {
            let checked = try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key)
            #expect(checked.status == 200, "\(checked.text)")
        }
        try expectRateLimited(try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key), "checks_per_watch", atMost: 1800)
        let shown = try await server.send("GET", "/v1/watches/\(id)", token: owner.key).object()
        #expect((shown["fetch_statistics"] as? [String: Any])?["requests"] as? Int == 2, "the refused check fetched nothing")

        // Another watch of the same user is not held by this one's limit.
        let other = try await server.createWatch(token: owner.key, ["url": "http://127.0.0.1:\(server.application.port)/readyz"])
        let otherID = try #require(other["id"] as? String)
        #expect(try await server.send("POST", "/v1/watches/\(otherID)/check", token: owner.key).status == 200)
    }

    @Test func checksPerUserCountEveryWatchAndMissingOnesToo() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            // Two watch creations (each makes its target due now), two
            // checks and a missing watch.
            $0.checkNowUserRate = RatePolicy(count: 5, per: .seconds(3600))
        }
        defer { server.shutdown() }
        let owner = try await server.createUser()
        let stranger = try await server.createUser()
        var ids: [String] = []
        for path in ["healthz", "readyz"] {
            let watch = try await server.createWatch(token: owner.key, ["url": "http://127.0.0.1:\(server.application.port)/\(path)"])
            ids.append(try #require(watch["id"] as? String))
        }

        #expect(try await server.send("POST", "/v1/watches/\(ids[0])/check", token: owner.key).status == 200)
        #expect(try await server.send("POST", "/v1/watches/\(ids[1])/check", token: owner.key).status == 200)
        // A watch that does not exist counts too: the limit comes before any read.
        #expect(try await server.send("POST", "/v1/watches/\(UUID().uuidString.lowercased())/check", token: owner.key).status == 404)
        // This watch still has a token; the user has none for 20 minutes.
        let seconds = try expectRateLimited(
            try await server.send("POST", "/v1/watches/\(ids[1])/check", token: owner.key), "checks_per_user", atMost: 1200
        )
        #expect(seconds > 600)
        // Someone else's limit is their own.
        let theirs = try await server.createWatch(token: stranger.key, ["url": "http://127.0.0.1:\(server.application.port)/healthz"])
        let theirID = try #require(theirs["id"] as? String)
        #expect(try await server.send("POST", "/v1/watches/\(theirID)/check", token: stranger.key).status == 200)
    }

    @Test func testEventsPerWebhookAndPerUser() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.webhookTestRate = RatePolicy(count: 2, per: .seconds(3600))
            $0.webhookTestUserRate = RatePolicy(count: 3, per: .seconds(3600))
        }
        defer { server.shutdown() }
        let owner = try await server.createUser()
        var hooks: [String] = []
        for _ in 0..<2 {
            let created = try await server.send("POST", "/v1/webhooks", token: owner.key, json: ["url": Self.receiverURL])
            #expect(created.status == 201, "\(created.text)")
            hooks.append(try #require(try created.object()["id"] as? String))
        }

        for _ in 0..<2 {
            let sent = try await server.send("POST", "/v1/webhooks/\(hooks[0])/test", token: owner.key)
            #expect(sent.status == 202, "\(sent.text)")
        }
        try expectRateLimited(try await server.send("POST", "/v1/webhooks/\(hooks[0])/test", token: owner.key), "tests_per_webhook", atMost: 1800)
        #expect(try deliveries(server, webhook: hooks[0]) == 2, "the refused test queued nothing")

        #expect(try await server.send("POST", "/v1/webhooks/\(hooks[1])/test", token: owner.key).status == 202)
        try expectRateLimited(try await server.send("POST", "/v1/webhooks/\(hooks[1])/test", token: owner.key), "tests_per_user", atMost: 1200)
        #expect(try deliveries(server, webhook: hooks[1]) == 1)
    }

    @Test func theAdminsTestEventsAreLimitedPerGlobalWebhook() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.webhookTestRate = RatePolicy(count: 1, per: .seconds(3600))
            $0.webhookTestUserRate = RatePolicy(count: 1, per: .seconds(3600))
        }
        defer { server.shutdown() }
        var hooks: [String] = []
        for _ in 0..<2 {
            let created = try await server.send("POST", "/v1/admin/webhooks", token: APITestServer.adminToken, json: ["url": Self.receiverURL])
            #expect(created.status == 201, "\(created.text)")
            hooks.append(try #require(try created.object()["id"] as? String))
        }
        // No per-user limit for the admin: one per webhook, for each webhook.
        for id in hooks {
            let sent = try await server.send("POST", "/v1/admin/webhooks/\(id)/test", token: APITestServer.adminToken)
            #expect(sent.status == 202, "\(sent.text)")
        }
        let seconds = try expectRateLimited(
            try await server.send("POST", "/v1/admin/webhooks/\(hooks[0])/test", token: APITestServer.adminToken), "tests_per_webhook", atMost: 3600
        )
        #expect(seconds > 3000)
    }
}
