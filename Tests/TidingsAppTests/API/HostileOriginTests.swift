import Foundation
import Testing
import TidingsApp
import TidingsTestSupport

/// Origins nobody here controls: an absurd `Retry-After` must neither trap
/// the process nor close the host for centuries, and a host that asked to
/// be left alone must not hold a check (or an HTTP thread) while it waits.
@Suite struct HostileOriginTests {
    /// One Tidings for every value; each value gets its own origin (a host
    /// held by one case must not decide the next).
    @Test func anAbsurdRetryAfterClosesOnlyThatHostAndOnlyForTheLongestBackOff() async throws {
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.stop() }
        let owner = try await server.createUser()
        for value in ["99999999999999999999999999", "9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT", "86401"] {
            try await checkAbsurdRetryAfter(value, server: server, owner: owner)
        }
    }

    private func checkAbsurdRetryAfter(_ value: String, server: APITestServer, owner: (id: String, key: String)) async throws {
        let hostile = try TestOriginServer { _ in
            TestResponse(status: 429, headers: [("Retry-After", value)], body: Array("slow down".utf8))
        }
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
        // Not waiting out the Retry-After (a day); the bound is loose
        // because CI machines are loaded, the request count is the proof.
        #expect(ContinuousClock.now - started < .seconds(30))
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

    /// The version endpoint half: a version endpoint that answers 429 with
    /// an absurd `Retry-After` fails only the version request. The page (on
    /// another host) is still fetched and decides the check, the check
    /// answers at once, and the version endpoint's host is held no longer
    /// than TIDINGS_MAX_RETRY_AFTER.
    @Test func anAbsurdRetryAfterFromAVersionEndpointNeitherDecidesNorStallsTheCheck() async throws {
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.stop() }
        let owner = try await server.createUser()
        for value in ["99999999999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"] {
            let version = try TestOriginServer { _ in
                TestResponse(status: 429, headers: [("Retry-After", value)], body: Array("slow down".utf8))
            }
            defer { version.stop() }
            let page = try TestOriginServer { _ in .text("the page") }
            defer { page.stop() }
            let id = try #require(
                try await server.createWatch(
                    token: owner.key,
                    [
                        "url": page.baseURL + "/", "version_url": version.baseURL + "/version", "version_pointer": "/v",
                    ])["id"] as? String)

            // The version request fails; the page decides, and is read. A
            // check that waited for the hold would answer only at the
            // check-now deadline (300 s here); the bound leaves room for the
            // cooperative pool the suites alongside keep busy.
            var started = ContinuousClock.now
            let first = try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key)
            #expect(ContinuousClock.now - started < .seconds(60), "\(value)")
            #expect(first.status == 200, "\(value): \(first.text)")
            #expect(try first.object()["result"] as? String == "baseline", "\(value): \(first.text)")
            #expect(version.receivedRequests == 1 && page.receivedRequests == 1, "\(value)")

            // The next check finds the version host held: no request there,
            // no wait, and the page is fetched again.
            started = ContinuousClock.now
            let second = try await server.send("POST", "/v1/watches/\(id)/check", token: owner.key)
            #expect(ContinuousClock.now - started < .seconds(60), "\(value)")
            #expect(try second.object()["result"] as? String == "unchanged", "\(value): \(second.text)")
            #expect(version.receivedRequests == 1 && page.receivedRequests == 2, "\(value)")

            // The hold is capped at TIDINGS_MAX_RETRY_AFTER (an hour by default).
            let onVersionHost = try #require(
                try await server.createWatch(token: owner.key, ["url": version.baseURL + "/page"])["id"] as? String)
            let held = try await server.send("POST", "/v1/watches/\(onVersionHost)/check", token: owner.key)
            let error = try #require(try held.object()["error"] as? String, "\(value): \(held.text)")
            #expect(error.contains("Retry-After"), "\(value): \(error)")
            let seconds = try #require(error.split(separator: " ").compactMap { Int($0) }.first)
            #expect(seconds > 3000 && seconds <= 3600, "\(value): \(error)")
            #expect(version.receivedRequests == 1, "\(value)")
        }
        #expect(try await server.send("GET", "/healthz").status == 200)
    }

    @Test func anUnreadableOrPastRetryAfterClosesNothing() async throws {
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.stop() }
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
