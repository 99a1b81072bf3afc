import FoundationEssentials
import TidingsObservability
@testable import TidingsApp

/// `since` and `until` of the delivery log. Any text parses or gives nil;
/// a date written the way the API writes dates (UTCTimestamp) parses back
/// to within a millisecond.
enum RFC3339Target {
    static func run(_ input: FuzzInput) {
        let text = input.string
        if let date = RFC3339Timestamp.parse(text) {
            check(date.timeIntervalSince1970.isFinite, "\(text.debugDescription) -> \(date)")
        }

        // From 2 January of year 1 to about year 9980, millisecond resolution.
        let milliseconds = Int64(input.int64Prefix.magnitude % 315_000_000_000_000) - 62_135_596_800_000 + 86_400_000
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let formatted = UTCTimestamp.format(date)
        let parsed = RFC3339Timestamp.parse(formatted)
        check(parsed.map { abs($0.timeIntervalSince(date)) < 0.0011 } ?? false, "\(formatted) -> \(String(describing: parsed)), expected \(date)")
    }
}
