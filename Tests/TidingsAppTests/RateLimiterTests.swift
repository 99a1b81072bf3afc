import Foundation
import Testing
import TidingsHTTPServer

@testable import TidingsApp

/// The keyed store of token buckets, on a made-up clock.
@Suite struct RateLimiterTests {
    private let start = ContinuousClock.now

    private func at(_ offset: Duration) -> ContinuousClock.Instant {
        start + offset
    }

    @Test func eachSubjectHasItsOwnBucketAndTheCallerOneForAll() {
        let limiter = RateLimiter(perCaller: RatePolicy(count: 3, per: .seconds(60)), perSubject: RatePolicy(count: 1, per: .seconds(10)))
        let user = UUID()
        let first = UUID()
        let second = UUID()
        let third = UUID()
        let fourth = UUID()
        #expect(limiter.admit(caller: user, subject: first, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: user, subject: first, now: at(.zero)) == .limited(retryAfter: .seconds(10), scope: .subject))
        #expect(limiter.admit(caller: user, subject: second, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: user, subject: third, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: user, subject: fourth, now: at(.zero)) == .limited(retryAfter: .seconds(20), scope: .caller))
        // Another user is not affected by the first one's limit, and its
        // calls naming the first one's subject do not use that up.
        let stranger = UUID()
        #expect(limiter.admit(caller: stranger, subject: fourth, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: stranger, subject: first, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: user, subject: first, now: at(.seconds(10))) == .limited(retryAfter: .seconds(10), scope: .caller))
        #expect(limiter.admit(caller: user, subject: first, now: at(.seconds(20))) == .admitted)
    }

    @Test func aRequestRefusedByOneLimitUsesUpNeither() {
        // Per caller: two, then one every 10 s; per subject: one every 10 s.
        let limiter = RateLimiter(perCaller: RatePolicy(count: 2, per: .seconds(20)), perSubject: RatePolicy(count: 1, per: .seconds(10)))
        let user = UUID()
        let watch = UUID()
        let second = UUID()
        let third = UUID()
        #expect(limiter.admit(caller: user, subject: watch, now: at(.zero)) == .admitted)
        // Refused by the subject: the caller's second token stays...
        #expect(limiter.admit(caller: user, subject: watch, now: at(.zero)) == .limited(retryAfter: .seconds(10), scope: .subject))
        // ...and serves another subject.
        #expect(limiter.admit(caller: user, subject: second, now: at(.zero)) == .admitted)
        // Refused by the caller: the subject's token stays. Had it been taken
        // at 1 s, the subject would be empty until 11 s.
        #expect(limiter.admit(caller: user, subject: third, now: at(.seconds(1))) == .limited(retryAfter: .seconds(9), scope: .caller))
        #expect(limiter.admit(caller: user, subject: third, now: at(.seconds(10))) == .admitted)
    }

    @Test func bothLimitsReachedAnswersTheLongerWait() {
        let limiter = RateLimiter(perCaller: RatePolicy(count: 1, per: .seconds(30)), perSubject: RatePolicy(count: 1, per: .seconds(10)))
        let user = UUID()
        let watch = UUID()
        #expect(limiter.admit(caller: user, subject: watch, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: user, subject: watch, now: at(.seconds(5))) == .limited(retryAfter: .seconds(25), scope: .caller))
        #expect(limiter.admit(caller: user, subject: watch, now: at(.seconds(30))) == .admitted)
    }

    @Test func withoutACallerOnlyTheSubjectCounts() {
        let limiter = RateLimiter(perCaller: RatePolicy(count: 1, per: .seconds(60)), perSubject: RatePolicy(count: 2, per: .seconds(20)))
        let webhook = UUID()
        #expect(limiter.admit(caller: nil, subject: webhook, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: nil, subject: webhook, now: at(.zero)) == .admitted)
        #expect(limiter.admit(caller: nil, subject: webhook, now: at(.zero)) == .limited(retryAfter: .seconds(10), scope: .subject))
        #expect(limiter.admit(caller: nil, subject: UUID(), now: at(.zero)) == .admitted)
    }

    @Test func refilledBucketsAreForgottenSoMemoryFollowsRecentRequests() {
        let limiter = RateLimiter(perCaller: RatePolicy(count: 1, per: .seconds(60)), perSubject: RatePolicy(count: 1, per: .seconds(10)))
        // Many subjects at once (the admin's, without a caller bucket).
        for _ in 0..<(RateLimiter.smallestSweepThreshold - 1) {
            #expect(limiter.admit(caller: nil, subject: UUID(), now: at(.zero)) == .admitted)
        }
        #expect(limiter.bucketCount == RateLimiter.smallestSweepThreshold - 1)
        // Once they have all refilled, the next request that grows the table
        // to the threshold sweeps them out.
        #expect(limiter.admit(caller: nil, subject: UUID(), now: at(.seconds(10))) == .admitted)
        #expect(limiter.bucketCount == 1)
        // Buckets still owed survive a sweep and keep limiting.
        let user = UUID()
        let watch = UUID()
        let global = UUID()
        #expect(limiter.admit(caller: user, subject: watch, now: at(.seconds(11))) == .admitted)
        #expect(limiter.admit(caller: nil, subject: global, now: at(.seconds(11))) == .admitted)
        for _ in 0..<(RateLimiter.smallestSweepThreshold * 2) {
            _ = limiter.admit(caller: nil, subject: UUID(), now: at(.seconds(12)))
        }
        #expect(limiter.admit(caller: user, subject: UUID(), now: at(.seconds(12))) == .limited(retryAfter: .seconds(59), scope: .caller))
        #expect(limiter.admit(caller: nil, subject: global, now: at(.seconds(12))) == .limited(retryAfter: .seconds(9), scope: .subject))
    }

    @Test func concurrentCallersNeverGetMoreThanTheBurst() async {
        let limiter = RateLimiter(
            perCaller: RatePolicy(count: 5, per: .seconds(3600)), perSubject: RatePolicy(count: 1000, per: .seconds(1)))
        let user = UUID()
        let now = at(.zero)
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask { limiter.admit(caller: user, subject: UUID(), now: now) == .admitted }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 5)
    }

    @Test func a429SaysWhichLimitAndWaitsWholeSecondsRoundedUpAndAtLeastOne() throws {
        let action = RateLimitedAction(
            action: "checks", subject: "watch", callerLimitName: "checks_per_user", subjectLimitName: "checks_per_watch",
            limiter: RateLimiter(
                perCaller: RatePolicy(count: 100, per: .seconds(1)), perSubject: RatePolicy(count: 1, per: .milliseconds(300)))
        )
        let user = UUID()
        let watch = UUID()
        try action.admit(caller: user, subject: watch)
        do throws(HTTPError) {
            try action.admit(caller: user, subject: watch)
            Issue.record("a second check within 300 ms was admitted")
        } catch {
            #expect(error.status == .tooManyRequests)
            #expect(error.headers["Retry-After"] == "1")
            #expect(error.extensions["limit"] == "checks_per_watch")
            #expect(error.integerExtensions["retry_after"] == 1)
            #expect(error.type == "urn:tidings:problem:rate-limited")
            #expect(error.detail == "Too many checks of this watch: at most 1 per 300 ms. Try again in 1 s.")
        }
    }

    @Test func periodsAreDescribedAsConfigured() {
        #expect(RateLimitedAction.describe(.seconds(20)) == "20 s")
        #expect(RateLimitedAction.describe(.seconds(60)) == "1 min")
        #expect(RateLimitedAction.describe(.seconds(90)) == "90 s")
        #expect(RateLimitedAction.describe(.milliseconds(1500)) == "1500 ms")
    }
}
