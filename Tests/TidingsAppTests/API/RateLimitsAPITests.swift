import Foundation
import Testing
import TidingsPostgres
import TidingsTestSupport

@testable import TidingsApp

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
        defer { server.stop() }
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
        defer { server.stop() }
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
        defer { server.stop() }
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
        try expectRateLimited(
            try await server.send("POST", "/v1/webhooks/\(hooks[0])/test", token: owner.key), "tests_per_webhook", atMost: 1800)
        #expect(try deliveries(server, webhook: hooks[0]) == 2, "the refused test queued nothing")

        #expect(try await server.send("POST", "/v1/webhooks/\(hooks[1])/test", token: owner.key).status == 202)
        try expectRateLimited(
            try await server.send("POST", "/v1/webhooks/\(hooks[1])/test", token: owner.key), "tests_per_user", atMost: 1200)
        #expect(try deliveries(server, webhook: hooks[1]) == 1)
    }

    @Test func theAdminsTestEventsAreLimitedPerGlobalWebhook() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.webhookTestRate = RatePolicy(count: 1, per: .seconds(3600))
            $0.webhookTestUserRate = RatePolicy(count: 1, per: .seconds(3600))
        }
        defer { server.stop() }
        var hooks: [String] = []
        for _ in 0..<2 {
            let created = try await server.send(
                "POST", "/v1/admin/webhooks", token: APITestServer.adminToken, json: ["url": Self.receiverURL])
            #expect(created.status == 201, "\(created.text)")
            hooks.append(try #require(try created.object()["id"] as? String))
        }
        // No per-user limit for the admin: one per webhook, for each webhook.
        for id in hooks {
            let sent = try await server.send("POST", "/v1/admin/webhooks/\(id)/test", token: APITestServer.adminToken)
            #expect(sent.status == 202, "\(sent.text)")
        }
        let seconds = try expectRateLimited(
            try await server.send("POST", "/v1/admin/webhooks/\(hooks[0])/test", token: APITestServer.adminToken), "tests_per_webhook",
            atMost: 3600
        )
        #expect(seconds > 3000)
    }

    /// A webhook of `key`'s to the closed port, with one test delivery; its
    /// id and the delivery's.
    private func webhookWithADelivery(_ server: APITestServer, key: String, admin: Bool = false) async throws -> (
        webhook: String, delivery: String
    ) {
        let prefix = admin ? "/v1/admin/webhooks" : "/v1/webhooks"
        let created = try await server.send("POST", prefix, token: key, json: ["url": Self.receiverURL])
        #expect(created.status == 201, "\(created.text)")
        let webhook = try #require(try created.object()["id"] as? String)
        let sent = try await server.send("POST", "\(prefix)/\(webhook)/test", token: key)
        #expect(sent.status == 202, "\(sent.text)")
        return (webhook, try #require(try sent.object()["delivery_id"] as? String))
    }

    @Test func retriesPerDeliveryAndPerUser() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.deliveryRetryRate = RatePolicy(count: 2, per: .seconds(3600))
            $0.deliveryRetryUserRate = RatePolicy(count: 4, per: .seconds(3600))
        }
        defer { server.stop() }
        let owner = try await server.createUser()
        let first = try await webhookWithADelivery(server, key: owner.key)
        let second = try await webhookWithADelivery(server, key: owner.key)

        for _ in 0..<2 {
            // 409 while an attempt is in flight: admitted all the same.
            let retried = try await server.send("POST", "/v1/deliveries/\(first.delivery)/retry", token: owner.key)
            #expect([202, 409].contains(retried.status), "\(retried.text)")
        }
        try expectRateLimited(
            try await server.send("POST", "/v1/deliveries/\(first.delivery)/retry", token: owner.key), "retries_per_delivery", atMost: 1800
        )

        // A delivery that does not exist counts too; then the user has none left.
        #expect(try await server.send("POST", "/v1/deliveries/\(UUID().uuidString.lowercased())/retry", token: owner.key).status == 404)
        #expect([202, 409].contains(try await server.send("POST", "/v1/deliveries/\(second.delivery)/retry", token: owner.key).status))
        try expectRateLimited(
            try await server.send("POST", "/v1/deliveries/\(second.delivery)/retry", token: owner.key), "retries_per_user", atMost: 1800
        )

        // Someone else's limit is their own.
        let stranger = try await server.createUser()
        let theirs = try await webhookWithADelivery(server, key: stranger.key)
        #expect([202, 409].contains(try await server.send("POST", "/v1/deliveries/\(theirs.delivery)/retry", token: stranger.key).status))
    }

    @Test func recoveriesPerWebhookAndPerUser() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.webhookRecoverRate = RatePolicy(count: 2, per: .seconds(3600))
            $0.webhookRecoverUserRate = RatePolicy(count: 3, per: .seconds(3600))
        }
        defer { server.stop() }
        let owner = try await server.createUser()
        let first = try await webhookWithADelivery(server, key: owner.key)
        let second = try await webhookWithADelivery(server, key: owner.key)
        let body = ["since": "2020-01-01T00:00:00Z"]

        // A body that is not valid is refused before the limits count it.
        let malformed = try await server.send(
            "POST", "/v1/webhooks/\(first.webhook)/recover", token: owner.key, json: ["since": "yesterday"])
        #expect((400...422).contains(malformed.status), "\(malformed.text)")
        for _ in 0..<2 {
            let recovered = try await server.send("POST", "/v1/webhooks/\(first.webhook)/recover", token: owner.key, json: body)
            #expect(recovered.status == 202, "\(recovered.text)")
        }
        try expectRateLimited(
            try await server.send("POST", "/v1/webhooks/\(first.webhook)/recover", token: owner.key, json: body),
            "recoveries_per_webhook", atMost: 1800
        )
        #expect(try await server.send("POST", "/v1/webhooks/\(second.webhook)/recover", token: owner.key, json: body).status == 202)
        try expectRateLimited(
            try await server.send("POST", "/v1/webhooks/\(second.webhook)/recover", token: owner.key, json: body),
            "recoveries_per_user", atMost: 1200
        )
    }

    @Test func theAdminsRetriesAndRecoveriesAreLimitedPerSubject() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.deliveryRetryRate = RatePolicy(count: 1, per: .seconds(3600))
            $0.deliveryRetryUserRate = RatePolicy(count: 1, per: .seconds(3600))
            $0.webhookRecoverRate = RatePolicy(count: 1, per: .seconds(3600))
            $0.webhookRecoverUserRate = RatePolicy(count: 1, per: .seconds(3600))
        }
        defer { server.stop() }
        let admin = APITestServer.adminToken
        let hooks = [
            try await webhookWithADelivery(server, key: admin, admin: true),
            try await webhookWithADelivery(server, key: admin, admin: true),
        ]
        let body = ["since": "2020-01-01T00:00:00Z"]
        // No per-user limit for the admin: one of each per subject, for each subject.
        for hook in hooks {
            #expect([202, 409].contains(try await server.send("POST", "/v1/admin/deliveries/\(hook.delivery)/retry", token: admin).status))
            #expect(try await server.send("POST", "/v1/admin/webhooks/\(hook.webhook)/recover", token: admin, json: body).status == 202)
        }
        try expectRateLimited(
            try await server.send("POST", "/v1/admin/deliveries/\(hooks[0].delivery)/retry", token: admin), "retries_per_delivery",
            atMost: 3600
        )
        try expectRateLimited(
            try await server.send("POST", "/v1/admin/webhooks/\(hooks[1].webhook)/recover", token: admin, json: body),
            "recoveries_per_webhook", atMost: 3600
        )
    }
}
