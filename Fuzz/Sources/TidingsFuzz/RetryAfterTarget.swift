import FoundationEssentials
import TidingsHTTPClient
import TidingsObservability

/// `Retry-After` from origins, version endpoints and webhook receivers,
/// and HTTP-dates. Any text: nil or a delay within zero and the cap (the
/// last byte picks one). A well-formed IMF-fixdate (built from the input)
/// parses to exactly its time and gives its distance from now, capped;
/// delay-seconds give their value, capped.
enum RetryAfterTarget {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let caps: [Duration] = [.zero, .seconds(1), .seconds(3600), .seconds(30 * 86_400), .seconds(10 * 365 * 86_400), .seconds(Int64.max)]

    static func run(_ input: FuzzInput) {
        let text = input.string
        let cap = caps[Int(input.bytes.last ?? 0) % caps.count]
        if let delay = RetryAfter.delay(from: text, now: now, atMost: cap) {
            check(delay >= .zero && delay <= cap, "delay \(delay) outside 0...\(cap) for \(text.debugDescription)")
        }
        _ = HTTPDate.parse(text)

        // A date within a century of now, as a receiver would send it.
        let offset = Int64(input.int64Prefix % (100 * 365 * 86_400))
        let date = Int64(now.timeIntervalSince1970) + offset
        let formatted = imfFixdate(secondsSinceEpoch: date)
        check(HTTPDate.parse(formatted) == Date(timeIntervalSince1970: Double(date)), "\(formatted) is not \(date)")
        let delay = RetryAfter.delay(from: formatted, now: now, atMost: cap)
        let expected = min(Duration.seconds(max(offset, 0)), cap)
        check(delay == expected, "\(formatted) gave \(String(describing: delay)), expected \(expected)")

        let seconds = offset.magnitude
        let delaySeconds = RetryAfter.delay(from: "\(seconds)", now: now, atMost: cap)
        check(delaySeconds == min(.seconds(Int64(seconds)), cap), "delay-seconds \(seconds) gave \(String(describing: delaySeconds))")
    }

    static func imfFixdate(secondsSinceEpoch seconds: Int64) -> String {
        let days = CivilCalendar.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(daysSinceEpoch: days)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        return "\(weekday), \(pad(day, 2)) \(months[Int(month) - 1]) \(pad(year, 4)) "
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)) GMT"
    }
}

func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
