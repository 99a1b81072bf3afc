import FoundationEssentials
import Testing
import TidingsHTTPClient

/// `Cache-Control`/`Expires` read as hostile input (decision 0028).
@Suite struct CacheLifetimeTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// `now` as an IMF-fixdate: Fri, 15 Jan 2027 08:00:00 GMT.
    private let nowText = "Fri, 15 Jan 2027 08:00:00 GMT"

    private func lifetime(_ cacheControl: [String] = [], expires: String? = nil, date: String? = nil, age: String? = nil) -> Duration? {
        CacheLifetime.remaining(cacheControl: cacheControl, expires: expires, date: date, age: age, now: now)
    }

    @Test func maxAgeIsTheLifetimeLessAge() {
        #expect(HTTPDate.parse(nowText) == now)
        #expect(lifetime(["max-age=600"]) == .seconds(600))
        #expect(lifetime(["public, max-age=600, must-revalidate"]) == .seconds(600))
        #expect(lifetime(["Public", " MAX-AGE = 600 "]) == .seconds(600))
        #expect(lifetime(["max-age=\"600\""]) == .seconds(600))
        #expect(lifetime(["max-age=600"], age: "100") == .seconds(500))
        #expect(lifetime(["max-age=600"], age: "600") == nil)
        #expect(lifetime(["max-age=600"], age: "junk") == .seconds(600))
        #expect(lifetime(["max-age=0"]) == nil)
        #expect(lifetime(["max-age=600", "max-age=600"]) == .seconds(600))
    }

    @Test func noCacheAndNoStoreGiveNoLifetime() {
        #expect(lifetime(["no-cache, max-age=600"]) == nil)
        #expect(lifetime(["max-age=600", "no-store"]) == nil)
        #expect(lifetime(["no-cache=\"set-cookie\""], expires: "Fri, 15 Jan 2027 09:00:00 GMT") == nil)
    }

    @Test func hostileMaxAgesAreIgnoredOrCapped() {
        #expect(lifetime(["max-age=-1"]) == nil)
        #expect(lifetime(["max-age=abc"]) == nil)
        #expect(lifetime(["max-age="]) == nil)
        #expect(lifetime(["max-age"]) == nil)
        #expect(lifetime(["max-age=1e9"]) == nil)
        #expect(lifetime(["max-age=12 34"]) == nil)
        #expect(lifetime(["max-age=\""]) == nil)
        #expect(lifetime(["max-age=60, max-age=6000"]) == nil)
        #expect(lifetime(["max-age=" + String(repeating: "9", count: 10_000)]) == .seconds(CacheLifetime.longestSeconds))
        #expect(lifetime(["max-age=18446744073709551616"]) == .seconds(CacheLifetime.longestSeconds))
        #expect(lifetime(["max-age=60"], age: String(repeating: "9", count: 100)) == nil)
        // Many directives: read in one pass, the one that counts still found.
        #expect(lifetime([String(repeating: "x=1,", count: 50_000) + "max-age=60"]) == .seconds(60))
        #expect(lifetime([String(repeating: ",", count: 50_000)]) == nil)
        #expect(lifetime(["\u{0}max-age=60\u{0}"]) == nil)
    }

    @Test func expiresCountsFromDate() {
        #expect(lifetime(expires: "Fri, 15 Jan 2027 09:00:00 GMT", date: nowText) == .seconds(3600))
        // Date is the origin's clock: its difference counts, not ours.
        #expect(lifetime(expires: "Fri, 15 Jan 2027 09:00:00 GMT", date: "Fri, 15 Jan 2027 08:30:00 GMT") == .seconds(1800))
        #expect(lifetime(expires: "Fri, 15 Jan 2027 09:00:00 GMT") == .seconds(3600))
        #expect(lifetime(expires: "Fri, 15 Jan 2027 09:00:00 GMT", date: "yesterday") == .seconds(3600))
        #expect(lifetime(expires: "Fri, 15 Jan 2027 09:00:00 GMT", date: nowText, age: "600") == .seconds(3000))
        #expect(lifetime(["max-age=60"], expires: "Fri, 15 Jan 2027 09:00:00 GMT", date: nowText) == .seconds(60))
    }

    @Test func unreadableOrPastExpiresIsAlreadyExpired() {
        #expect(lifetime(expires: "0", date: nowText) == nil)
        #expect(lifetime(expires: "-1") == nil)
        #expect(lifetime(expires: "Thu, 01 Jan 1970 00:00:00 GMT", date: nowText) == nil)
        #expect(lifetime(expires: "Fri, 15 Jan 2027 09:00:00 GMT", date: "Sun, 06 Nov 9999 08:49:37 GMT") == nil)
        #expect(lifetime(expires: "Sun, 06 Nov 9999 08:49:37 GMT", date: nowText) == .seconds(CacheLifetime.longestSeconds))
        #expect(lifetime() == nil)
    }

    @Test func readsEveryCacheControlFieldOfAResponse() {
        let response = HTTPClientResponse(
            status: 200,
            headers: [("Cache-Control", "public"), ("cache-control", "max-age=120"), ("Age", "20")],
            body: [], effectiveURL: "https://example.com/", redirectCount: 0, duration: .zero,
            remoteAddress: nil, bytesReceived: 0
        )
        #expect(CacheLifetime.remaining(of: response, now: now) == .seconds(100))
    }

    /// Field names match in ASCII case only: letters fold, every other
    /// byte (a `-` against a `_`, a Unicode letter) must be the same.
    @Test func headerNamesMatchInASCIICaseOnly() {
        let response = HTTPClientResponse(
            status: 200,
            headers: [
                ("CONTENT_TYPE", "wrong"), ("content-type", "text/html"), ("Content-Type", "text/plain"), ("Étag", "wrong"),
                ("ETAG", "\"v1\""), ("X-A", "1"), ("x-a", "2"),
            ],
            body: [], effectiveURL: "https://example.com/", redirectCount: 0, duration: .zero,
            remoteAddress: nil, bytesReceived: 0
        )
        #expect(response.header("Content-Type") == "text/html")
        #expect(response.header("etag") == "\"v1\"")
        #expect(response.header("éTAG") == nil)
        #expect(response.header("Content-Typ") == nil)
        #expect(response.header("") == nil)
        #expect(response.headerValues("X-a") == ["1", "2"])
        #expect(response.headerValues("Age").isEmpty)
    }
}
