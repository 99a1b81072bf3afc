import Foundation
import Testing
import TidingsPostgres
import TidingsTestSupport

@testable import TidingsApp

/// What one tenant can do to a URL others watch through the watches API:
/// the distinct rules one target carries are bounded
/// (`TIDINGS_MAX_RULES_PER_TARGET`), and creating a watch makes its target
/// due now only with a token of the user's check rate.
@Suite struct SharedTargetAPITests {
    @Test func aRuleBeyondTheTargetsLimitIs422NamingExtractAndWritesNothing() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.maxRulesPerTarget = 2
        }
        defer { server.stop() }
        let victim = try await server.createUser()
        let tenant = try await server.createUser()
        let url = "http://127.0.0.1:\(server.application.port)/healthz"
        _ = try await server.createWatch(token: victim.key, ["url": url, "extract": ["css": "#a"]])
        _ = try await server.createWatch(token: tenant.key, ["url": url, "extract": ["css": "#b"]])

        for extract in [["css": "#c"], nil] as [[String: String]?] {
            var body: [String: Any] = ["url": url]
            if let extract { body["extract"] = extract }
            let refused = try await server.send("POST", "/v1/watches", token: tenant.key, json: body)
            #expect(refused.status == 422, "\(refused.text)")
            #expect(refused.isProblem)
            #expect(try refused.object()["field"] as? String == "extract", "\(refused.text)")
        }
        // A rule the target already carries adds no work: allowed.
        let same = try await server.send("POST", "/v1/watches", token: tenant.key, json: ["url": url, "extract": ["css": "#a"]])
        #expect(same.status == 201, "\(same.text)")
        let count = try server.application.database.query("SELECT count(*)::int AS n FROM watches")[0].decode("n", as: Int.self)
        #expect(count == 3, "the refused watches were not written")

        // Editing a watch to a third rule is refused the same way.
        let id = try #require(try same.object()["id"] as? String)
        let edited = try await server.send("PATCH", "/v1/watches/\(id)", token: tenant.key, json: ["extract": ["xpath": "//p"]])
        #expect(edited.status == 422, "\(edited.text)")
        #expect(try edited.object()["field"] as? String == "extract")
    }

    @Test func creatingWatchesPastTheCheckRateDoesNotMakeTargetsDue() async throws {
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.pollConcurrency = 0
            $0.checkNowUserRate = RatePolicy(count: 1, per: .seconds(3600))
        }
        defer { server.stop() }
        let owner = try await server.createUser()
        let base = "http://127.0.0.1:\(server.application.port)"
        let first = try await server.createWatch(token: owner.key, ["url": "\(base)/healthz", "interval_seconds": 600])
        // The user's one token is spent: this watch is created, and its
        // target waits an interval for its first check.
        let second = try await server.createWatch(token: owner.key, ["url": "\(base)/readyz", "interval_seconds": 600])
        // So is joining the first one's target: its schedule stays.
        let healthz = "\(base)/healthz"
        _ = try server.application.database.query(
            "UPDATE targets SET next_check_at = now() + interval '300 seconds' WHERE url = \(healthz) RETURNING id")
        _ = try await server.createWatch(token: owner.key, ["url": "\(base)/healthz", "extract": ["css": "p"], "interval_seconds": 600])

        func secondsUntilDue(_ watch: [String: Any]) throws -> Double {
            let id = try #require(watch["id"] as? String)
            return try server.application.database.query(
                """
                SELECT extract(epoch FROM t.next_check_at - now())::float8 AS s
                FROM watches w JOIN targets t ON t.id = w.target_id WHERE w.id = \(id)::uuid
                """)[0].decode("s", as: Double.self)
        }
        #expect(try secondsUntilDue(second) > 500, "a new target past the rate waits about its interval")
        #expect(try secondsUntilDue(first) > 200, "an existing target past the rate keeps its schedule")
    }
}
