package import FoundationEssentials
import TidingsObservability

/// RFC 9110 HTTP-date in its preferred form, IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), read strictly: every field has its
/// fixed width and range, so no header value, however absurd, can make the
/// arithmetic overflow. The day name is not checked against the date.
package enum HTTPDate {
    private static let dayNames: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    package static func parse(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes exactly.
        guard bytes.count == 29,
            dayNames.contains(String(decoding: bytes[0..<3], as: UTF8.self)),
            bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
            let day = number(bytes[5..<7]), (1...31).contains(day), bytes[7] == UInt8(ascii: " "),
            let monthIndex = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
            bytes[11] == UInt8(ascii: " "),
            let year = number(bytes[12..<16]), bytes[16] == UInt8(ascii: " "),
            let hour = number(bytes[17..<19]), hour < 24, bytes[19] == UInt8(ascii: ":"),
            let minute = number(bytes[20..<22]), minute < 60, bytes[22] == UInt8(ascii: ":"),
            let second = number(bytes[23..<25]), second <= 60,
            String(decoding: bytes[25..<29], as: UTF8.self) == " GMT"
        else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: Int64(monthIndex) + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// Fixed-width decimal digits, nil for anything else.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}
