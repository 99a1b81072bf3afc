package import FoundationEssentials

/// RFC 3339 timestamps in UTC with millisecond precision
/// (`2026-11-29T15:04:05.123Z`), formatted without Foundation's format styles
/// because every request writes one. Dates outside years 1-9999 are
/// written as the nearest supported one.
package enum UTCTimestamp {
    package static func format(_ date: Date) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func append(_ date: Date, to bytes: inout [UInt8]) {
        let milliseconds = date.unitsSince1970(perSecond: 1000)
        let (days, millisecondOfDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (year, month, day) = CivilCalendar.date(daysSinceEpoch: millisecondOfDay < 0 ? days - 1 : days)
        let time = Int(millisecondOfDay < 0 ? millisecondOfDay + 86_400_000 : millisecondOfDay)
        appendDigits(Int(year), width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(Int(month), width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(Int(day), width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(time / 3_600_000, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(time / 60_000 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(time / 1000 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(time % 1000, width: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Appends `value` (never negative here) zero-padded to `width` digits.
    private static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        guard value < divisor * 10 else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
