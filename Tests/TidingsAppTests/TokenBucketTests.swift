import Testing

@testable import TidingsApp

/// The token bucket on a made-up clock: instants are offsets from one
/// start, nothing here waits.
@Suite struct TokenBucketTests {
    private typealias Bucket = TokenBucket<ContinuousClock.Instant>
    private let start = ContinuousClock.now

    private func at(_ offset: Duration) -> ContinuousClock.Instant {
        start + offset
    }

    @Test func aBurstOfCountThenOneEveryInterval() {
        // 2/20s: a burst of two, then one every 10 s.
        var bucket = Bucket(policy: RatePolicy(count: 2, per: .seconds(20)))
        #expect(bucket.take(now: at(.zero)) == .admitted)
        #expect(bucket.take(now: at(.zero)) == .admitted)
        #expect(bucket.take(now: at(.zero)) == .limited(retryAfter: .seconds(10)))
        #expect(bucket.take(now: at(.seconds(4))) == .limited(retryAfter: .seconds(6)))
        #expect(bucket.take(now: at(.milliseconds(9999))) == .limited(retryAfter: .milliseconds(1)))
        #expect(bucket.take(now: at(.seconds(10))) == .admitted)
        #expect(bucket.take(now: at(.seconds(10))) == .limited(retryAfter: .seconds(10)))
        #expect(bucket.take(now: at(.seconds(20))) == .admitted)
    }

    @Test func aRefusedRequestTakesNothing() {
        var bucket = Bucket(policy: RatePolicy(count: 1, per: .seconds(10)))
        #expect(bucket.take(now: at(.zero)) == .admitted)
        for second in 1...9 {
            #expect(bucket.take(now: at(.seconds(second))) == .limited(retryAfter: .seconds(10 - second)))
        }
        // Hammering while limited does not push the next token further out.
        #expect(bucket.take(now: at(.seconds(10))) == .admitted)
    }

    @Test func refillsToTheBurstAndNoFurther() {
        var bucket = Bucket(policy: RatePolicy(count: 3, per: .seconds(3)))
        for _ in 0..<3 { #expect(bucket.take(now: at(.zero)) == .admitted) }
        #expect(!bucket.isFull(now: at(.seconds(2))))
        #expect(bucket.isFull(now: at(.seconds(3))))
        // An hour idle still allows only the burst.
        let later = Duration.seconds(3600)
        for _ in 0..<3 { #expect(bucket.take(now: at(later)) == .admitted) }
        #expect(bucket.take(now: at(later)) == .limited(retryAfter: .seconds(1)))
    }

    @Test func thirtyAMinuteIsOneEveryTwoSecondsAfterTheBurst() {
        var bucket = Bucket(policy: RatePolicy(count: 30, per: .seconds(60)))
        for _ in 0..<30 { #expect(bucket.take(now: at(.zero)) == .admitted) }
        #expect(bucket.take(now: at(.zero)) == .limited(retryAfter: .seconds(2)))
        #expect(bucket.take(now: at(.seconds(2))) == .admitted)
        #expect(bucket.take(now: at(.seconds(3))) == .limited(retryAfter: .seconds(1)))
    }

    @Test func decisionDoesNotTake() {
        var bucket = Bucket(policy: RatePolicy(count: 1, per: .seconds(5)))
        #expect(bucket.decision(now: at(.zero)) == .admitted)
        #expect(bucket.decision(now: at(.zero)) == .admitted)
        #expect(bucket.isFull(now: at(.zero)))
        #expect(bucket.take(now: at(.zero)) == .admitted)
        #expect(bucket.decision(now: at(.seconds(1))) == .limited(retryAfter: .seconds(4)))
    }

    @Test func anInstantBeforeTheLastTakeIsAnsweredConservatively() {
        var bucket = Bucket(policy: RatePolicy(count: 1, per: .seconds(10)))
        #expect(bucket.take(now: at(.seconds(100))) == .admitted)
        // An earlier instant (clocks passed in may be anything) sees the
        // bucket further from full, never fuller.
        #expect(bucket.take(now: at(.seconds(95))) == .limited(retryAfter: .seconds(15)))
    }

    @Test func extremePoliciesDoNotTrap() {
        let longest = ValueParsers.longestDuration
        var slow = Bucket(policy: RatePolicy(count: 1_000_000, per: longest))
        #expect(slow.take(now: at(.zero)) == .admitted)
        var once = Bucket(policy: RatePolicy(count: 1, per: longest))
        #expect(once.take(now: at(.zero)) == .admitted)
        #expect(once.take(now: at(.zero)) == .limited(retryAfter: longest))
        var fast = Bucket(policy: RatePolicy(count: 1_000_000, per: .milliseconds(1)))
        for _ in 0..<1000 { #expect(fast.take(now: at(.zero)) == .admitted) }
    }
}
