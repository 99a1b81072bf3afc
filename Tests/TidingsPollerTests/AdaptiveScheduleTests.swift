import Foundation
import Testing
import TidingsTestSupport

@testable import TidingsPoller

/// The adaptive schedule (decision 0028) on a simulated clock: each check
/// happens exactly when the previous one scheduled it.
@Suite struct AdaptiveScheduleTests {
    private let schedule = CheckSchedule(jitter: 0.1, maximumBackoff: .seconds(86_400))
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Delays of `count` checks in a row that all see the same content,
    /// without jitter.
    private func unchangedDelays(_ bounds: CheckBounds, count: Int, cacheLifetime: Duration? = nil) -> [Double] {
        var now = start
        var delays: [Double] = []
        for _ in 0..<count {
            let next = schedule.afterSuccess(now: now, bounds: bounds, unchangedSince: start, cacheLifetime: cacheLifetime, random: 0)
            delays.append(next.timeIntervalSince(now))
            now = next
        }
        return delays
    }

    @Test func unchangedChecksBackOffUpToTheMaximum() {
        let delays = unchangedDelays(CheckBounds(intervalSeconds: 60, maximumSeconds: 3600), count: 80)
        // At the interval until the content has stayed the same for ten
        // intervals (checks at 0, 60, ..., 600 s), then growing.
        #expect(delays.prefix(11).allSatisfy { $0 == 60 })
        #expect(delays[11] > 60)
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(delays.max() == 3600)
        #expect(delays.suffix(10).allSatisfy { $0 == 3600 })
        // Each step grows by at most a tenth: no sudden jump past the pages' pace.
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $1 <= $0 * 1.1 + 1e-6 })
    }

    @Test func aChangeReturnsToTheInterval() {
        let bounds = CheckBounds(intervalSeconds: 60, maximumSeconds: 3600)
        let now = start.addingTimeInterval(86_400)
        let backedOff = schedule.afterSuccess(now: now, bounds: bounds, unchangedSince: start, cacheLifetime: nil, random: 0)
        #expect(backedOff.timeIntervalSince(now) == 3600)
        // The check that sees the change passes its own time as the start.
        let changed = schedule.afterSuccess(now: now, bounds: bounds, unchangedSince: now, cacheLifetime: nil, random: 0)
        #expect(changed.timeIntervalSince(now) == 60)
    }

    @Test func maximumEqualToTheIntervalNeverBacksOff() {
        let bounds = CheckBounds(intervalSeconds: 60, maximumSeconds: 60)
        #expect(unchangedDelays(bounds, count: 200).allSatisfy { $0 == 60 })
        #expect(unchangedDelays(bounds, count: 5, cacheLifetime: .seconds(86_400)).allSatisfy { $0 == 60 })
    }

    @Test func boundsNeverLetTheMaximumFallBelowTheInterval() {
        let bounds = CheckBounds(intervalSeconds: 120, maximumSeconds: 30)
        #expect(bounds.maximumSeconds == 120)
        #expect(CheckBounds(intervalSeconds: 0, maximumSeconds: -5) == CheckBounds(intervalSeconds: 1, maximumSeconds: 1))
    }

    @Test func cacheLifetimeIsALowerBoundOnlyWithinTheMaximum() {
        let bounds = CheckBounds(intervalSeconds: 60, maximumSeconds: 3600)
        func delay(_ lifetime: Duration?) -> Double {
            CheckSchedule.delayAfterSuccess(now: start, bounds: bounds, unchangedSince: start, cacheLifetime: lifetime)
        }
        #expect(delay(nil) == 60)
        #expect(delay(.seconds(10)) == 60) // shorter than the interval: no earlier check
        #expect(delay(.seconds(900)) == 900) // longer: honoured
        #expect(delay(.seconds(86_400)) == 3600) // but never past the maximum
        // Longer than what the back-off alone gives, too.
        let later = start.addingTimeInterval(3000)
        #expect(CheckSchedule.delayAfterSuccess(now: later, bounds: bounds, unchangedSince: start, cacheLifetime: .seconds(1200)) == 1200)
        #expect(CheckSchedule.delayAfterSuccess(now: later, bounds: bounds, unchangedSince: start, cacheLifetime: .seconds(100)) == 300)
    }

    @Test func aContentTimeInTheFutureCountsAsJustChanged() {
        // Clocks of replicas and the database may disagree.
        let bounds = CheckBounds(intervalSeconds: 60, maximumSeconds: 3600)
        let next = schedule.afterSuccess(
            now: start, bounds: bounds, unchangedSince: start.addingTimeInterval(1e9), cacheLifetime: nil, random: 0)
        #expect(next.timeIntervalSince(start) == 60)
    }

    @Test func jitterSpreadsTargetsAddedTogetherWithinTheirBounds() {
        let bounds = CheckBounds(intervalSeconds: 300, maximumSeconds: 300)
        var generator = SeededRandomNumberGenerator(seed: 16)
        let nexts = (0..<100).map { _ in
            schedule.afterSuccess(
                now: start, bounds: bounds, unchangedSince: start, cacheLifetime: nil,
                random: Double.random(in: 0...1, using: &generator)
            ).timeIntervalSince(start)
        }
        #expect(nexts.allSatisfy { (270...300).contains($0) })
        #expect(Set(nexts).count > 90)
        #expect(nexts.max()! - nexts.min()! > 20)
        // Out-of-range random values are held to the range.
        #expect(
            schedule.afterSuccess(now: start, bounds: bounds, unchangedSince: start, cacheLifetime: nil, random: 7).timeIntervalSince(start)
                == 270)
        #expect(
            schedule.afterSuccess(now: start, bounds: bounds, unchangedSince: start, cacheLifetime: nil, random: -3).timeIntervalSince(
                start) == 300)
    }

    @Test func jitteredBackOffStaysWithinTheMaximum() {
        let bounds = CheckBounds(intervalSeconds: 60, maximumSeconds: 3600)
        var generator = SeededRandomNumberGenerator(seed: 28)
        var now = start
        for _ in 0..<500 {
            let next = schedule.afterSuccess(
                now: now, bounds: bounds, unchangedSince: start, cacheLifetime: .seconds(Int64.max),
                random: Double.random(in: 0...1, using: &generator))
            let delay = next.timeIntervalSince(now)
            #expect(delay >= 54 && delay <= 3600)
            now = next
        }
    }
}
