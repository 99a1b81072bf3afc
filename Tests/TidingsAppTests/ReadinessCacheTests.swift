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
        #expect(cache.next(now: at(1)) == .slow)
        cache.refreshed(.applied(34), readAt: at(0))
        for time in [2, 100, 499] {
            #expect(cache.next(now: at(time)) == .answer(.applied(34)))
        }
        // Past half a second one caller reads again, the others answer from
        // the reading until it is a second old.
        #expect(cache.next(now: at(500)) == .refresh)
        #expect(cache.next(now: at(700)) == .answer(.applied(34)))
        #expect(cache.next(now: at(1000)) == .answer(.applied(34)))
        #expect(cache.next(now: at(1001)) == .slow, "no answer older than a second")
        // A reading's age counts from when its query started.
        cache.refreshed(.unreachable, readAt: at(900))
        #expect(cache.next(now: at(1002)) == .answer(.unreachable), "a failed read answers too, without another query")
        #expect(cache.next(now: at(1400)) == .refresh)
    }
}
