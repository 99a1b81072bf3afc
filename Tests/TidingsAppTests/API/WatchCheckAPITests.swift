import Foundation
import Testing
import TidingsApp
import TidingsTestSupport

/// POST /v1/watches/{id}/check, against the application's own HTTP server
/// as the origin (a real loopback page that does not change).
@Suite struct WatchCheckAPITests {
    @Test func checkRunsNowAndReturnsTheOutcomeAndWatch() async throws {
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.stop() }
        let owner = try await server.createUser()
        let url = "http://127.0.0.1:\(server.application.port)/openapi.yaml"
        let watch = try await server.createWatch(token: owner.key, ["url": url])
        let id = try #require(watch["id"] as? String)

        let first = try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key)
        #expect(first.status == 200, "\(first.text)")
        let outcome = try first.object()
        #expect(outcome["result"] as? String == "baseline")
        #expect(outcome["change_id"] is NSNull && outcome["error"] is NSNull)
        #expect(outcome["state"] as? String == "ok")
        let checked = try #require(outcome["watch"] as? [String: Any])
        #expect((checked["content_hash"] as? String)?.count == 64)
        #expect(checked["last_check_result"] as? String == "baseline")
        let statistics = try #require(checked["fetch_statistics"] as? [String: Any])
        #expect(statistics["requests"] as? Int == 1)
        #expect((statistics["bytes_received"] as? Int ?? 0) > 1000)

        let second = try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key)
        #expect(try second.object()["result"] as? String == "unchanged")
    }

    @Test func aSlowOriginGets504AtTheDeadlineAndTheCheckGoesOn() async throws {
        let origin = try TestOriginServer { _ in
            // The slow origin under test: past the 0.3 s deadline of a check now.
            Thread.sleep(forTimeInterval: 2)
            return .text("slow page")
        }
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.checkNowTimeout = .milliseconds(300)
        }
        defer { server.stop(); origin.stop() }
        let owner = try await server.createUser()
        let watch = try await server.createWatch(token: owner.key, ["url": "\(origin.baseURL)/slow"])
        let id = try #require(watch["id"] as? String)

        let response = try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key)
        #expect(response.status == 504, "\(response.text)")
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(
            try response.object()["detail"] as? String
                == "The check did not finish within 0.3 seconds. It goes on; its result will show on the watch.")
        // The server still answers, and the check is written when it ends.
        var checked: [String: Any] = [:]
        #expect(
            try await eventually(every: .milliseconds(100)) {
                checked = try await server.send("GET", "/v1/watches/\(id)", token: owner.key).object()
                return checked["content_hash"] is String
            })
        #expect((checked["content_hash"] as? String)?.count == 64)
        #expect(checked["last_check_result"] as? String == "baseline")
    }

    @Test func anotherUsersWatchIsNotFound() async throws {
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.stop() }
        let owner = try await server.createUser()
        let stranger = try await server.createUser()
        let watch = try await server.createWatch(token: owner.key, ["url": "http://127.0.0.1:\(server.application.port)/healthz"])
        let id = try #require(watch["id"] as? String)

        let response = try await server.send("POST", "/v1/watches/\(id)/check", token: stranger.key)
        #expect(response.status == 404)
        #expect(response.isProblem)
        let missing = try await server.send("POST", "/v1/watches/\(UUID().uuidString.lowercased())/check", token: owner.key)
        #expect(missing.status == 404)
        // Nothing was fetched for the stranger's attempt.
        let unchecked = try await server.send("GET", "/v1/watches/\(id)", token: owner.key)
        #expect(try unchecked.object()["last_check_result"] is NSNull)
    }
}
