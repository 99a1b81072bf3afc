#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// RFC 3339 timestamps in UTC with millisecond precision
/// (`2026-11-29T15:04:05.123Z`), formatted without Foundation's format styles
/// because every request writes one.
public enum UTCTimestamp {
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        let milliseconds = Int(((seconds - Double(whole)) * 1000).rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + "." + pad(min(milliseconds, 999), 3) + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
