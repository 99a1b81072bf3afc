import FoundationEssentials
import Testing
import TidingsDomain
import TidingsHTTPClient

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
        // Never sooner than the schedule, and capped at its longest step (10 h).
        #expect(
            policy.decide(attemptsMade: 2, statusCode: status, retryAfter: .seconds(1), random: { _ in 1 }) == .retry(after: .seconds(300)))
        #expect(
            policy.decide(attemptsMade: 1, statusCode: status, retryAfter: .seconds(10 * 86_400), random: { _ in 1 })
                == .retry(after: .seconds(36_000)))
        #expect(policy.longestRetryAfter == .seconds(36_000))
        #expect(RetryPolicy(schedule: [.seconds(1), .seconds(7)]).longestRetryAfter == .seconds(7))
    }

    @Test func retryAfterIsIgnoredForOtherStatuses() {
        #expect(
            policy.decide(attemptsMade: 1, statusCode: 500, retryAfter: .seconds(120), random: { _ in 1 }) == .retry(after: .seconds(5)))
    }
}

/// Whatever a receiver answers, the next attempt is scheduled within the
/// retry schedule's longest step (with jitter), and nothing traps.
@Suite struct HostileReceiverResponseTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let policy = RetryPolicy(schedule: RetryPolicy.defaultSchedule)

    private func nextAttempt(status: Int, retryAfter: String) -> CompletedAttempt.Outcome {
        let delivery = ClaimedDelivery(
            id: UUID(), webhookID: UUID(), userID: nil, eventID: UUID(), eventType: "watch.changed", eventData: "{}",
            eventTimestamp: "2027-01-15T08:00:00Z", url: "https://receiver.example/", secrets: [], attemptCount: 0,
            leaseDuration: .seconds(15)
        )
        let response = HTTPClientResponse(
            status: status, headers: [("Retry-After", retryAfter)], body: Array("busy".utf8), effectiveURL: "https://receiver.example/",
            redirectCount: 0, duration: .milliseconds(3), remoteAddress: nil, bytesReceived: 4
        )
        let attempt = FinishedAttempt(delivery: delivery, attemptedAt: now, elapsed: .seconds(Int64.max), result: .success(response))
        return attempt.completed(policy: policy, now: now).outcome
    }

    @Test(arguments: [
        "Fri, 31 Dec 999999999 23:59:59 GMT", "99999999999999999999999999", "9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT",
        "-1", "", "NaN", "1e308", String(repeating: "9", count: 100_000),
    ])
    func retryAfterIsCappedAtTheLongestStep(value: String) {
        for status in [429, 500, 502, 503, 504] {
            guard case .retry(let at) = nextAttempt(status: status, retryAfter: value) else {
                Issue.record("\(status) \(value.prefix(40)): expected a retry")
                continue
            }
            #expect(at > now && at.timeIntervalSince(now) <= 36_000 * 1.2, "\(status) \(value.prefix(40)): \(at)")
        }
    }
}
