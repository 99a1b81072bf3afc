import Foundation
import Testing

@testable import TidingsApp

@Suite struct RFC3339TimestampTests {
    @Test(arguments: [
        ("2000-01-01T00:00:00Z", 946_684_800.0),
        ("2000-01-01t00:00:00z", 946_684_800.0),
        ("2000-01-01T00:00:00.25Z", 946_684_800.25),
        ("2000-01-01T05:30:00+05:30", 946_684_800.0),
        ("1970-01-01T00:00:00-23:59", 86_340.0),
        ("1969-12-31T23:59:59Z", -1.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("2000-02-29T00:00:00Z", 951_782_400.0),
        ("2026-04-30T00:00:00Z", 1_777_507_200.0),
    ])
    func validDateTimesParse(_ text: String, _ seconds: Double) {
        #expect(RFC3339Timestamp.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "", "yesterday", "2000-01-01", "2000-01-01T00:00:00", "2000-13-01T00:00:00Z", "2000-01-01T00:00:00.Z", "2000-01-01T00:00:00+0500",
        // Days a month does not have (a hostile-input hunt saw Feb 30 read as March 2).
        "2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-06-31T00:00:00Z", "2026-09-31T00:00:00Z", "2026-11-31T00:00:00Z", "2026-01-00T00:00:00Z",
    ])
    func othersDoNot(_ text: String) {
        #expect(RFC3339Timestamp.parse(text) == nil)
    }
}
