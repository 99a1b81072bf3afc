import FoundationEssentials
import TidingsHTTPClient
import TidingsObservability

/// `Retry-After` from origins, version endpoints and webhook receivers.
/// Any text: nil or a delay that is never negative. A well-formed
/// IMF-fixdate (built from the input) gives exactly its distance from now,
/// and delay-seconds give exactly their value.
enum RetryAfterTarget {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func run(_ input: FuzzInput) {
        let text = input.string
        if let delay = RetryAfter.delay(from: text, now: now) {
            check(delay >= .zero, "negative delay \(delay) for \(text.debugDescription)")
        }

        // A date within a century of now, as a receiver would send it.
        let offset = Int64(input.int64Prefix % (100 * 365 * 86_400))
        let date = Int64(now.timeIntervalSince1970) + offset
        let formatted = imfFixdate(secondsSinceEpoch: date)
        let delay = RetryAfter.delay(from: formatted, now: now)
        check(delay == .seconds(max(offset, 0)), "\(formatted) gave \(String(describing: delay)), expected \(max(offset, 0)) s")

        let seconds = offset.magnitude
        check(RetryAfter.delay(from: "\(seconds)", now: now) == .seconds(Int64(seconds)), "delay-seconds \(seconds)")
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
