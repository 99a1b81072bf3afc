import Foundation
import Testing

@testable import TidingsApp

/// When `/readyz` reads the database again, on a made-up clock.
@Suite struct ReadinessCacheTests {
    private let start = ContinuousClock.now
    private typealias Cache = ReadinessCache<ContinuousClock.Instant>

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        start + .milliseconds(milliseconds)
    }

    @Test func oneReadAnswersEveryProbeOfTheNextHalfSecond() {
        var cache = Cache(refreshAfter: .milliseconds(500), maxAge: .seconds(1))
        #expect(cache.next(now: at(0)) == .refresh)
        // Probes while the first read runs have nothing to answer from.
        #expect(cache.next(now: at(1)) == .awaitRefresh)
        #expect(cache.lastReading == nil)
        cache.refreshed(.applied(34), readAt: at(0))
        for time in [2, 100, 499] {
            #expect(cache.next(now: at(time)) == .answer(.applied(34)))
        }
        // Past half a second one caller reads again, the others answer from
        // the reading until it is a second old.
        #expect(cache.next(now: at(500)) == .refresh)
        #expect(cache.next(now: at(700)) == .answer(.applied(34)))
        #expect(cache.next(now: at(1000)) == .answer(.applied(34)))
        #expect(cache.next(now: at(1001)) == .awaitRefresh, "no answer older than a second")
        // A reading's age counts from when the database answered.
        cache.refreshed(.unreachable, readAt: at(1100))
        #expect(cache.lastReading == .unreachable)
        #expect(cache.next(now: at(1102)) == .answer(.unreachable), "a failed read answers too, without another query")
        #expect(cache.next(now: at(1600)) == .refresh)
    }
}
