import Testing
import TidingsDomain

/// The sync feed's cursor is outside data: clients send it back as `after`
/// and as the stream's `Last-Event-ID`. Only what the API writes parses.
@Suite struct FeedPositionTests {
    @Test(arguments: ["0", "1", "42", "9223372036854775807", "0000000000000000001"])
    func writtenPositionsRoundTrip(token: String) throws {
        let position = try #require(FeedPosition(token: token))
        #expect(FeedPosition(token: position.token) == position)
        #expect(position >= .start)
    }

    @Test(arguments: [
        "", " 1", "1 ", "+1", "-1", "1e3", "0x10", "1.0", "١٢", "9223372036854775808",
        "99999999999999999999", String(repeating: "9", count: 10_000), "1\u{0}", "１",
    ])
    func anythingElseIsRefused(token: String) {
        #expect(FeedPosition(token: token) == nil)
    }

    @Test func positionsOrderByValue() throws {
        let earlier = try #require(FeedPosition(token: "9"))
        let later = try #require(FeedPosition(token: "10"))
        #expect(earlier < later)
        #expect(FeedPosition.start < earlier)
    }

    @Test(arguments: [(-5, 1), (0, 1), (1, 1), (Int.max, PageRequest.maximumLimit)])
    func queryLimitsAreClampedIntoTheirRange(asked: Int, expected: Int) {
        #expect(FeedQuery(limit: asked).limit == expected)
    }
}
