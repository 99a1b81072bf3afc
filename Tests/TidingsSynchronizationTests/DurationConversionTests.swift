import Dispatch
import Testing
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

    /// Past `Int64.min` by less than a second: the multiplication fits and
    /// the fraction's addition overflows, which must saturate at the
    /// negative end, not jump to the positive one.
    @Test func saturatesNegativeOverflowInTheFractionAtTheNegativeEnd() {
        let justPastNanoseconds = Duration.nanoseconds(Int64.min) - .nanoseconds(1)
        #expect(justPastNanoseconds.inNanoseconds == Int64.min)
        #expect(Duration.nanoseconds(Int64.min).inNanoseconds == Int64.min)
        let justPastMilliseconds = Duration(secondsComponent: -9_223_372_036_854_775, attosecondsComponent: -809_000_000_000_000_000)
        #expect(justPastMilliseconds.inMilliseconds == Int64.min)
        #expect(justPastMilliseconds.roundedUpMilliseconds == Int64.min)
        // The same just inside the range is exact.
        let atMilliseconds = Duration(secondsComponent: -9_223_372_036_854_775, attosecondsComponent: -808_000_000_000_000_000)
        #expect(atMilliseconds.inMilliseconds == Int64.min)
        #expect(Duration.milliseconds(-1500).roundedUpMilliseconds == -1500)
        // A deadline that far in the past is now, not "forever".
        let before = DispatchTime.now()
        let deadline = justPastNanoseconds.dispatchDeadline
        #expect(deadline >= before && deadline < Duration.seconds(60).dispatchDeadline)
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
