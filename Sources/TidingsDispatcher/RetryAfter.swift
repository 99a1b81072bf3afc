import FoundationEssentials

/// Reads a `Retry-After` header: delay-seconds or an HTTP date (RFC 9110).
enum RetryAfter {
    static func parse(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return .milliseconds(Int64(max(seconds, 0) * 1000))
    }

    /// IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT", the form senders must use.
    private static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT",
              let day = Int(parts[1]),
              let month = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = clock[0]
        components.minute = clock[1]
        components.second = clock[2]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
