import Foundation
import Testing
import TidingsObservability

/// Dates become integers here: every conversion clamps instead of
/// trapping.
@Suite struct DateEpochTests {
    @Test func convertsSupportedDates() {
        #expect(Date(timeIntervalSince1970: 1.5).unitsSince1970(perSecond: 1000) == 1500)
        #expect(Date(timeIntervalSince1970: -1.5).unitsSince1970(perSecond: 1000) == -1500)
        #expect(Date(timeIntervalSince1970: 0.0000015).unitsSince1970(perSecond: 1_000_000, rounding: .toNearestOrAwayFromZero) == 2)
    }

    // Absurd dates stay out of #expect's captured values: printing one
    // (Date.description) traps in Foundation itself, which is why nothing
    // in Tidings may print a Date it did not clamp.
    @Test func clampsDatesOutsideYearsOneToNineThousandNineHundredNinetyNine() {
        let latest = Date.latestSupported.unitsSince1970(perSecond: 1_000_000)
        let earliest = Date.earliestSupported.unitsSince1970(perSecond: 1_000_000)
        let units = [1e300, .infinity, -1e300, .nan].map { Date(timeIntervalSince1970: $0).unitsSince1970(perSecond: 1_000_000) }
        #expect(units == [latest, latest, earliest, earliest])
        let supported = [1e300, .nan, -1e300, 0].map { Date(timeIntervalSince1970: $0).isSupported }
        #expect(supported == [false, false, false, true])
    }

    @Test func logTimestampsOfAbsurdDatesAreClamped() {
        let formatted = [1e300, -1e300, .nan, 0].map { UTCTimestamp.format(Date(timeIntervalSince1970: $0)) }
        #expect(
            formatted == ["9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z"])
    }
}
