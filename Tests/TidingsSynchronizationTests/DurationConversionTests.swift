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
