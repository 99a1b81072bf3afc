import TidingsTestSupport
import Foundation
import Testing
import TidingsDomain
@testable import TidingsPoller

/// A `Retry-After` holds only the site that sent it: after a redirect, the
/// last hop's site and port (`HTTPOrigin.siteAndPort`), not the host of the
/// URL the check started from. Two loopback servers on different ports are
/// two hosts.
@Suite(.serialized) struct RetryAfterScopeTests {
    @Test func aRetryAfterAtTheEndOfARedirectHoldsTheLastHopsHostOnly() async throws {
        let context = try PollerTestContext()
        let limitedScript = OriginScript()
        let limited = try limitedScript.origin { _ in
            TestResponse(status: 429, headers: [("Retry-After", "3600")], body: Array("slow down".utf8))
        }
        let redirectorScript = OriginScript()
        let limitedPort = limited.port
        let redirector = try redirectorScript.origin { request in
            request.path == "/start" ? .redirect(to: "http://127.0.0.1:\(limitedPort)/limited") : .text("direct page")
        }
        let poller = try context.poller()
        defer { poller.shutdown(); redirector.stop(); limited.stop(); context.close() }
        let user = try context.user()

        // A (redirector) -> B (limited): B's 429 fails the check and holds B.
        let redirected = try context.watch(user: user, url: "\(redirector.baseURL)/start")
        let first = try await context.check(redirected, with: poller)
        #expect(first.result == .failed)
        #expect(first.error == "the server answered HTTP 429", "\(first.error ?? "")")
        #expect(redirectorScript.requestCount(path: "/start") == 1)
        #expect(limitedScript.requestCount(path: "/limited") == 1)

        // A is not held: a watch directly on it is requested and checked.
        let direct = try context.watch(user: user, url: "\(redirector.baseURL)/direct")
        #expect(try await context.check(direct, with: poller).result == .baseline)
        #expect(redirectorScript.requestCount(path: "/direct") == 1)

        // B is: a watch on it fails at once, and no request reaches B.
        let onLimited = try context.watch(user: user, url: "\(limited.baseURL)/other")
        let started = ContinuousClock.now
        let held = try await context.check(onLimited, with: poller)
        #expect(ContinuousClock.now - started < HostLimiter.longestHoldWait)
        #expect(held.result == .failed)
        let error = try #require(held.error)
        #expect(error.hasPrefix("not requested: the server asked for no requests for another "), "\(error)")
        #expect(error.hasSuffix(" s (Retry-After)"), "\(error)")
        #expect(limitedScript.requests.count == 1, "B was requested while it asked for an hour without requests")

        // The redirected watch's next check still asks A, and stops at B.
        let again = try await context.check(redirected, with: poller)
        #expect(again.result == .failed)
        #expect(again.error?.contains("Retry-After") == true, "\(again.error ?? "")")
        #expect(redirectorScript.requestCount(path: "/start") == 2)
        #expect(limitedScript.requests.count == 1)
    }
}
