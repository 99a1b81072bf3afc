package import FoundationEssentials
import TidingsSynchronization

/// RFC 9110 `Retry-After`: delay-seconds or an HTTP-date, as a delay from
/// `now`. The value comes from a server nobody here controls, so the result
/// is always within `0...longest`: a date in the past is zero, a delay or
/// date beyond `longest` (even beyond any integer type) is `longest`.
/// Nil for anything else, including negative seconds.
package enum RetryAfter {
    package static func delay(from value: String, now: Date, atMost longest: Duration) -> Duration? {
        let text = value.trimmingSpaces()
        let range = Duration.zero...max(longest, .zero)
        if !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // All digits: too many for Int64 is simply "very long".
            guard let seconds = Int64(text) else { return range.upperBound }
            return Duration.seconds(seconds).clamped(to: range)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return Duration.seconds(clamping: date.timeIntervalSince(now)).clamped(to: range)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
