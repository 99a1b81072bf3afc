package import FoundationEssentials

/// The dates Tidings reads and writes: years 1 through 9999, what RFC 3339
/// text, log lines and the API can show and PostgreSQL can store. Integer
/// conversions of a `Date` go through `unitsSince1970`, which clamps into
/// this range first, so no date (from a client, an origin or a receiver)
/// can overflow `Int64` and trap.
extension Date {
    /// 0001-01-01T00:00:00Z.
    package static let earliestSupported = Date(timeIntervalSince1970: -62_135_596_800)
    /// 9999-12-31T23:59:59.999999Z.
    package static let latestSupported = Date(timeIntervalSince1970: 253_402_300_799.999_999)

    /// Compared as numbers: `Date`'s `>=` is `!(<)`, true for a NaN date.
    package var isSupported: Bool {
        let seconds = timeIntervalSince1970
        return seconds >= -62_135_596_800 && seconds < 253_402_300_800
    }

    /// Whole `1/perSecond` units since 1970 (`perSecond` at most 1,000,000),
    /// rounded by `rule`, the date clamped into the supported range first
    /// (a NaN date counts as the earliest).
    ///
    /// A `Date` is a `Double` of seconds since 2001: the whole seconds and
    /// the fraction are taken from that apart (both exactly), so only the
    /// fraction's scaling rounds. Going through seconds since 1970 first
    /// rounded once more, which moved a microsecond after year 2106.
    package func unitsSince1970(perSecond: Int64, rounding rule: FloatingPointRoundingRule = .down) -> Int64 {
        let lower = -62_135_596_800 * perSecond
        let upper = 253_402_300_800 * perSecond - 1
        let sinceReference = timeIntervalSinceReferenceDate
        guard !sinceReference.isNaN else { return lower }
        let whole = sinceReference.rounded(.down)
        // Year 1 and year 10000 in seconds since 2001, so that no date
        // outside them reaches the conversion to Int64.
        guard whole >= Double(-62_135_596_800 - Self.secondsFrom1970To2001) else { return lower }
        guard whole < Double(253_402_300_800 - Self.secondsFrom1970To2001) else { return upper }
        let fraction = Int64(((sinceReference - whole) * Double(perSecond)).rounded(rule))
        return min(max((Int64(whole) + Self.secondsFrom1970To2001) * perSecond + fraction, lower), upper)
    }

    /// `Date.timeIntervalBetween1970AndReferenceDate`, as an integer.
    package static let secondsFrom1970To2001 = Int64(Date.timeIntervalBetween1970AndReferenceDate)
}
