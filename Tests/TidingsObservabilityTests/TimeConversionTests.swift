import Foundation
import Testing
import TidingsObservability
import TidingsSynchronization

/// The one place where durations and dates become integers: every
/// conversion saturates or clamps instead of trapping.
@Suite struct DurationConversionTests {
    @Test func convertsOrdinaryDurations() {
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        #expect(Duration.milliseconds(1500).inMilliseconds == 1500)
        #expect(Duration.microseconds(1500).inMilliseconds == 1)
        #expect(Duration.microseconds(1500).roundedUpMilliseconds == 2)
        #expect(Duration.milliseconds(1500).inNanoseconds == 1_500_000_000)
        #expect(Duration.milliseconds(1).roundedUpSeconds == 1)
        #expect(Duration.seconds(3).roundedUpSeconds == 3)
        #expect(Duration.milliseconds(-1500).inMilliseconds == -1500)
    }

    @Test func saturatesInsteadOfOverflowing() {
        let huge = Duration.seconds(Int64.max)
        #expect(huge.inNanoseconds == Int64.max)
        #expect(huge.inMilliseconds == Int64.max)
        #expect(huge.roundedUpMilliseconds == Int64.max)
        #expect(huge.roundedUpSeconds == Int64.max)
        #expect(Duration.seconds(Int64.min).inNanoseconds == Int64.min)
        #expect(Duration.seconds(Int64.min).inMilliseconds == Int64.min)
    }

    @Test func madeFromAnyDouble() {
        #expect(Duration.seconds(clamping: 1.5) == .milliseconds(1500))
        #expect(Duration.seconds(clamping: .nan) == .zero)
        #expect(Duration.seconds(clamping: .infinity) == Duration.seconds(clamping: 1e300))
        #expect(Duration.seconds(clamping: .infinity) <= Duration.longestRepresentable)
        #expect(Duration.seconds(clamping: -.infinity) < .zero)
        #expect(Duration.seconds(clamping: -1e300).inNanoseconds > Int64.min)
    }

    @Test func clampsIntoARange() {
        #expect(Duration.seconds(10).clamped(to: .zero...Duration.seconds(5)) == .seconds(5))
        #expect(Duration.seconds(-10).clamped(to: .zero...Duration.seconds(5)) == .zero)
        #expect(Duration.seconds(3).clamped(to: .zero...Duration.seconds(5)) == .seconds(3))
    }

    @Test func dispatchDeadlinesNeverWrap() {
        let before = DispatchTime.now()
        #expect(Duration.seconds(Int64.max).dispatchDeadline > Duration.seconds(86_400 * 365 * 200).dispatchDeadline)
        #expect(Duration.seconds(-5).dispatchDeadline >= before)
        let oneSecond = Duration.seconds(1).dispatchDeadline
        #expect(oneSecond > before && oneSecond < .distantFuture)
    }
}

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
        #expect(formatted == ["9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z"])
    }
}
