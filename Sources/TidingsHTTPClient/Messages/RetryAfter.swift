import Foundation
import TidingsObservability

/// RFC 9110 `Retry-After`: delay-seconds or an IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), as a delay from `now`. Nil for
/// anything else, including negative seconds; a date in the past is zero.
public enum RetryAfter {
    public static func delay(from value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        guard let date = imfFixdate(text) else { return nil }
        return .milliseconds(Int64(max(date.timeIntervalSince(now), 0) * 1000))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func imfFixdate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT",
              let day = Int64(parts[1]),
              let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = Int64(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int64($0) }
        guard clock.count == 3 else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: Int64(monthIndex) + 1, day: day)
        let seconds = days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
