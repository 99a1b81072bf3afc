import Testing
@testable import TidingsDispatcher

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(schedule: RetryPolicy.defaultSchedule)

    @Test(arguments: [200, 201, 204, 299])
    func anyTwoHundredSucceeds(_ status: Int) {
        #expect(policy.decide(attemptsMade: 1, statusCode: status, retryAfter: nil) == .succeeded)
    }

    @Test(arguments: [nil, 301, 302, 400, 404, 500] as [Int?])
    func failuresRetryOnTheSchedule(_ status: Int?) {
        #expect(policy.decide(attemptsMade: 1, statusCode: status, retryAfter: nil, random: { _ in 1 }) == .retry(after: .seconds(5)))
        #expect(policy.decide(attemptsMade: 2, statusCode: status, retryAfter: nil, random: { _ in 1 }) == .retry(after: .seconds(300)))
        #expect(policy.decide(attemptsMade: 7, statusCode: status, retryAfter: nil, random: { _ in 1 }) == .retry(after: .seconds(36_000)))
    }

    @Test func theLastAttemptFails() {
        #expect(policy.decide(attemptsMade: 8, statusCode: 500, retryAfter: nil) == .failed)
        #expect(policy.decide(attemptsMade: 9, statusCode: nil, retryAfter: nil) == .failed)
    }

    @Test func goneStopsAtOnce() {
        #expect(policy.decide(attemptsMade: 1, statusCode: 410, retryAfter: nil) == .gone)
        #expect(policy.decide(attemptsMade: 8, statusCode: 410, retryAfter: nil) == .gone)
    }

    @Test func jitterStaysWithinTwentyPercent() {
        var seen: [Duration] = []
        for _ in 0..<200 {
            guard case .retry(let delay) = policy.decide(attemptsMade: 2, statusCode: 500, retryAfter: nil) else {
                Issue.record("expected a retry")
                return
            }
            seen.append(delay)
        }
        #expect(seen.allSatisfy { $0 >= .seconds(240) && $0 <= .seconds(360) })
        #expect(Set(seen).count > 100)
        #expect(policy.decide(attemptsMade: 2, statusCode: 500, retryAfter: nil, random: { $0.lowerBound }) == .retry(after: .seconds(240)))
        #expect(policy.decide(attemptsMade: 2, statusCode: 500, retryAfter: nil, random: { $0.upperBound }) == .retry(after: .seconds(360)))
    }

    @Test(arguments: [429, 502, 503, 504])
    func retryAfterIsHonouredForOverloadStatuses(_ status: Int) {
        let decision = policy.decide(attemptsMade: 1, statusCode: status, retryAfter: .seconds(120), random: { _ in 1 })
        #expect(decision == .retry(after: .seconds(120)))
        // Never sooner than the schedule, and capped at a day.
        #expect(policy.decide(attemptsMade: 2, statusCode: status, retryAfter: .seconds(1), random: { _ in 1 }) == .retry(after: .seconds(300)))
        #expect(policy.decide(attemptsMade: 1, statusCode: status, retryAfter: .seconds(10 * 86_400), random: { _ in 1 }) == .retry(after: .seconds(86_400)))
    }

    @Test func retryAfterIsIgnoredForOtherStatuses() {
        #expect(policy.decide(attemptsMade: 1, statusCode: 500, retryAfter: .seconds(120), random: { _ in 1 }) == .retry(after: .seconds(5)))
    }
}

import FoundationEssentials
