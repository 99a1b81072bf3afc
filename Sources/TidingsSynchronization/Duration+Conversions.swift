package import Dispatch

/// The one place where a `Duration` becomes a number of seconds,
/// milliseconds or nanoseconds, or is made from one. Every conversion
/// saturates instead of trapping: durations can come from outside (a
/// `Retry-After`, a configuration value) and Swift traps on an overflowing
/// multiplication or an out-of-range `Int64(double)`, which would take the
/// whole service down.
extension Duration {
    /// The longest duration any conversion here produces: about 292 years,
    /// the range of `Int64` nanoseconds (what Dispatch deadlines and
    /// `ContinuousClock` instants can hold).
    package static let longestRepresentable: Duration = .nanoseconds(Int64.max)

    /// Seconds with their fraction, for arithmetic with `Date` and `TimeInterval`.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, saturating at `Int64`'s bounds.
    package var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return Self.combine(seconds, scale: 1_000_000_000, attoseconds / 1_000_000_000)
    }

    /// Whole milliseconds, rounded down and saturating at `Int64`'s bounds.
    package var inMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return Self.combine(seconds, scale: 1000, attoseconds / 1_000_000_000_000_000)
    }

    /// Whole milliseconds rounded up (a tiny positive duration is 1 ms),
    /// saturating.
    package var roundedUpMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let remainder = attoseconds % 1_000_000_000_000_000
        let milliseconds = Self.combine(seconds, scale: 1000, attoseconds / 1_000_000_000_000_000)
        return remainder > 0 && milliseconds < Int64.max ? milliseconds + 1 : milliseconds
    }

    /// Whole seconds rounded up (a tiny positive duration is 1 s).
    package var roundedUpSeconds: Int64 {
        let (seconds, attoseconds) = components
        return attoseconds > 0 && seconds < Int64.max ? seconds + 1 : seconds
    }

    /// A duration of `seconds`, which may be NaN, infinite or absurd: NaN
    /// is zero, anything else is clamped into ±`longestRepresentable`.
    package static func seconds(clamping seconds: Double) -> Duration {
        guard !seconds.isNaN else { return .zero }
        let limit = Double(Int64.max / 1_000_000_000)
        let clamped = Swift.min(Swift.max(seconds, -limit), limit)
        return .nanoseconds(Int64((clamped * 1e9).rounded(.towardZero)))
    }

    /// This duration, no shorter than `range.lowerBound` and no longer than
    /// `range.upperBound`.
    package func clamped(to range: ClosedRange<Duration>) -> Duration {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }

    /// A Dispatch deadline this long from now; negative is now, and beyond
    /// what Dispatch can represent is "forever".
    package var dispatchDeadline: DispatchTime {
        let nanoseconds = Swift.max(inNanoseconds, 0)
        let now = DispatchTime.now()
        let (deadline, overflow) = now.uptimeNanoseconds.addingReportingOverflow(UInt64(nanoseconds))
        return overflow || deadline >= DispatchTime.distantFuture.uptimeNanoseconds
            ? .distantFuture : DispatchTime(uptimeNanoseconds: deadline)
    }

    /// A Dispatch interval of the same length, saturating.
    package var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(clamping: inNanoseconds))
    }

    /// `seconds * scale + fraction`, saturating toward the side it went
    /// past. `fraction` has the sign of `seconds` (`components` divides
    /// toward zero), so a sum can go past either end.
    private static func combine(_ seconds: Int64, scale: Int64, _ fraction: Int64) -> Int64 {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: scale)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(fraction)
        if sumOverflow { return fraction < 0 ? Int64.min : Int64.max }
        return sum
    }
}
