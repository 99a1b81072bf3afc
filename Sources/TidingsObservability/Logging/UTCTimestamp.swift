#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// RFC 3339 timestamps in UTC with millisecond precision
/// (`2026-11-29T15:04:05.123Z`), formatted without Foundation's format styles
/// because every request writes one.
public enum UTCTimestamp {
    public static func format(_ date: Date) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func append(_ date: Date, to bytes: inout [UInt8]) {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        let milliseconds = min(Int(((seconds - Double(whole)) * 1000).rounded(.down)), 999)
        var parts = tm()
        gmtime_r(&whole, &parts)
        appendDigits(Int(parts.tm_year) + 1900, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mon) + 1, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mday), width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(Int(parts.tm_hour), width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_min), width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_sec), width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(milliseconds, width: 3, to: &bytes)
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
