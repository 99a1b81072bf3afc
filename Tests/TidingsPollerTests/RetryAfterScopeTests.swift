import Foundation
import Testing
import TidingsDomain
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// A `Retry-After` holds only the host that sent it: after a redirect, the
/// last hop's host and port, not the host of the URL the check started
/// from, and for at most `TIDINGS_MAX_RETRY_AFTER`. Two loopback servers on
/// different ports are two hosts.
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
        defer { poller.stop(); redirector.stop(); limited.stop(); context.close() }
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

    /// A day asked for is held for `maximumRetryAfter` at most: once that
    /// has passed the host is requested again.
    @Test func aRetryAfterOfADayHoldsTheHostForTheCapOnly() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try script.origin { _ in
            TestResponse(status: 429, headers: [("Retry-After", "86400")], body: Array("slow down".utf8))
        }
        let poller = try context.poller { $0.maximumRetryAfter = .seconds(1) }
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/limited")
        #expect(try await context.check(watch, with: poller).result == .failed)
        #expect(script.requests.count == 1)
        // Held for the cap, not a day: the next check waits it out (a fixed
        // wait past the 1 s hold, the window under test) and asks.
        try await Task.sleep(for: .milliseconds(1200))
        #expect(try await context.check(watch, with: poller).result == .failed)
        #expect(script.requests.count == 2, "the host was held past TIDINGS_MAX_RETRY_AFTER")
        let due = try context.database.query("SELECT extract(epoch FROM next_check_at - now())::float8 AS s FROM targets")[0]
            .decode("s", as: Double.self)
        #expect(due < 200, "the next check was pushed \(due) s by a Retry-After the cap cuts to 1 s")
    }
}
