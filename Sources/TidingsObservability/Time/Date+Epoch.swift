import FoundationEssentials

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
    package func unitsSince1970(perSecond: Int64, rounding rule: FloatingPointRoundingRule = .down) -> Int64 {
        // Bounds in whole units, so that the clamping is exact.
        let lower = -62_135_596_800 * perSecond
        let upper = 253_402_300_800 * perSecond - 1
        let units = (timeIntervalSince1970 * Double(perSecond)).rounded(rule)
        guard !units.isNaN, units > Double(lower) else { return lower }
        guard units < Double(upper) else { return upper }
        return Int64(units)
    }
}
