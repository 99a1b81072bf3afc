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
    ])
    func validDateTimesParse(_ text: String, _ seconds: Double) {
        #expect(RFC3339Timestamp.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: ["", "yesterday", "2000-01-01", "2000-01-01T00:00:00", "2000-13-01T00:00:00Z", "2000-01-01T00:00:00.Z", "2000-01-01T00:00:00+0500"])
    func othersDoNot(_ text: String) {
        #expect(RFC3339Timestamp.parse(text) == nil)
    }
}
