import Foundation
import Testing
import TidingsPush

/// The access token cache's rules, as a pure state machine.
@Suite struct FCMAccessTokenCacheTests {
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    private func grant(_ token: String, seconds: Int64 = 3599) -> Result<FCMAccessGrant, PushCredentialError> {
        .success(FCMAccessGrant(accessToken: token, lifetime: .seconds(seconds)))
    }

    @Test func oneFetchServesEveryoneUntilShortlyBeforeExpiry() {
        var cache = FCMAccessTokenCache()

        #expect(cache.request(now: start) == .fetch)
        #expect(cache.request(now: start) == .wait)
        #expect(cache.request(now: start.addingTimeInterval(1)) == .wait)
        cache.fetched(grant("t1"), now: start)

        // 3599 s granted, refreshed 300 s before the end.
        #expect(cache.request(now: start.addingTimeInterval(3298)) == .use("t1"))
        #expect(cache.request(now: start.addingTimeInterval(3299)) == .fetch)
        #expect(cache.request(now: start.addingTimeInterval(3299)) == .wait)
        cache.fetched(grant("t2"), now: start.addingTimeInterval(3300))
        #expect(cache.request(now: start.addingTimeInterval(3301)) == .use("t2"))
    }

    @Test func shortLifetimesKeepHalfTheirTimeAndZeroIsUsedOnce() {
        var cache = FCMAccessTokenCache()
        _ = cache.request(now: start)
        cache.fetched(grant("short", seconds: 60), now: start)
        #expect(cache.request(now: start.addingTimeInterval(29)) == .use("short"))
        #expect(cache.request(now: start.addingTimeInterval(30)) == .fetch)

        cache.fetched(grant("instant", seconds: 0), now: start.addingTimeInterval(30))
        // The waiters got it with the fetch; the next push fetches again.
        #expect(cache.request(now: start.addingTimeInterval(30)) == .fetch)
    }

    @Test func aRejectedTokenIsDroppedButAForcedOneNotAgainWithinAMinute() {
        var cache = FCMAccessTokenCache()
        _ = cache.request(now: start)
        cache.fetched(grant("t1"), now: start)

        #expect(cache.rejected("t1", now: start.addingTimeInterval(5)) == true)
        #expect(cache.request(now: start.addingTimeInterval(5)) == .fetch)
        // Sends that were in flight with t1 come back while t2 is fetched.
        #expect(cache.rejected("t1", now: start.addingTimeInterval(5)) == true)
        cache.fetched(grant("t2"), now: start.addingTimeInterval(6))
        #expect(cache.rejected("t1", now: start.addingTimeInterval(7)) == true)
        #expect(cache.request(now: start.addingTimeInterval(7)) == .use("t2"))

        // t2 was fetched because of a 401: FCM refusing it too does not
        // send Tidings to the token endpoint again for a minute.
        #expect(cache.rejected("t2", now: start.addingTimeInterval(65)) == false)
        #expect(cache.request(now: start.addingTimeInterval(65)) == .use("t2"))
        #expect(cache.rejected("t2", now: start.addingTimeInterval(66)) == true)
        #expect(cache.request(now: start.addingTimeInterval(66)) == .fetch)
    }

    @Test func failuresHoldForACooldown() {
        var cache = FCMAccessTokenCache()
        let down = PushCredentialError("down", isTransient: true)
        let refused = PushCredentialError("refused")

        _ = cache.request(now: start)
        cache.fetched(.failure(down), now: start)
        #expect(cache.request(now: start.addingTimeInterval(4.9)) == .fail(down))
        #expect(cache.request(now: start.addingTimeInterval(5)) == .fetch)
        cache.fetched(.failure(refused), now: start.addingTimeInterval(5))
        #expect(cache.request(now: start.addingTimeInterval(64.9)) == .fail(refused))
        #expect(cache.request(now: start.addingTimeInterval(65)) == .fetch)
        cache.fetched(grant("t1"), now: start.addingTimeInterval(65))
        #expect(cache.request(now: start.addingTimeInterval(66)) == .use("t1"))
    }
}
