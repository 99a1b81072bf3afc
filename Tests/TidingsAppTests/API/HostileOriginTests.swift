import Foundation
import Testing
import TidingsTestSupport

/// Origins nobody here controls: an absurd `Retry-After` must neither trap
/// the process nor close the host for centuries, and a host that asked to
/// be left alone must not hold a check (or an HTTP thread) while it waits.
@Suite struct HostileOriginTests {
    /// One Tidings for every value; each value gets its own origin (a host
    /// held by one case must not decide the next).
    @Test func anAbsurdRetryAfterClosesOnlyThatHostAndOnlyForTheLongestBackOff() async throws {
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.shutdown() }
        let owner = try await server.createUser()
        for value in ["99999999999999999999999999", "9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT", "86401"] {
            try await checkAbsurdRetryAfter(value, server: server, owner: owner)
        }
    }

    private func checkAbsurdRetryAfter(_ value: String, server: APITestServer, owner: (id: String, key: String)) async throws {
        let hostile = try TestOriginServer { _ in TestResponse(status: 429, headers: [("Retry-After", value)], body: Array("slow down".utf8)) }
        defer { hostile.stop() }
        let polite = try TestOriginServer { _ in .text("fine") }
        defer { polite.stop() }
        let first = try #require(try await server.createWatch(token: owner.key, ["url": hostile.baseURL + "/a"])["id"] as? String)
        let second = try #require(try await server.createWatch(token: owner.key, ["url": hostile.baseURL + "/b"])["id"] as? String)
        let other = try #require(try await server.createWatch(token: owner.key, ["url": polite.baseURL + "/"])["id"] as? String)

        let refused = try await server.send("POST", "/v1/watches/\(first)/check", token: owner.key)
        #expect(refused.status == 200, "\(refused.text)")
        #expect((try refused.object()["error"] as? String)?.contains("429") == true, "\(refused.text)")

        // The host is closed: the second watch fails at once, without a request.
        let started = ContinuousClock.now
        let held = try await server.send("POST", "/v1/watches/\(second)/check", token: owner.key)
        #expect(ContinuousClock.now - started < .seconds(5))
        let error = try #require(try held.object()["error"] as? String)
        #expect(error.contains("Retry-After"), "\(error)")
        #expect(hostile.receivedRequests == 1)

        // Held no longer than the longest back-off (TIDINGS_MAX_INTERVAL, a day).
        let seconds = try #require(error.split(separator: " ").compactMap { Int($0) }.first)
        #expect(seconds > 0 && seconds <= 86_400, "\(error)")

        // Another host is not affected, and the process still serves.
        let fine = try await server.send("POST", "/v1/watches/\(other)/check", token: owner.key)
        #expect(try fine.object()["result"] as? String == "baseline", "\(fine.text)")
        #expect(try await server.send("GET", "/healthz").status == 200)
    }

    @Test func anUnreadableOrPastRetryAfterClosesNothing() async throws {
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.shutdown() }
        let owner = try await server.createUser()
        for value in ["Fri, 31 Dec 999999999 23:59:59 GMT", "-5", "soon", "1e300", "Sun, 06 Nov 1994 08:49:37 GMT"] {
            let hostile = try TestOriginServer { _ in TestResponse(status: 503, headers: [("Retry-After", value)]) }
            defer { hostile.stop() }
            let id = try #require(try await server.createWatch(token: owner.key, ["url": hostile.baseURL + "/"])["id"] as? String)
            for _ in 0..<2 {
                let response = try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key)
                #expect((try response.object()["error"] as? String)?.contains("503") == true, "\(value): \(response.text)")
            }
            #expect(hostile.receivedRequests == 2, "\(value)")
        }
    }
}
