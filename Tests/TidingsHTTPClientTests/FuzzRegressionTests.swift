import Foundation
import Testing

@testable import TidingsHTTPClient

/// Inputs the fuzz targets found (docs/FUZZING.md); each is also a file in
/// Fuzz/corpus so the fuzzer starts from it.
@Suite struct FuzzRegressionTests {
    /// retry-after (Fuzz/corpus/retry-after/far-future): a receiver's date in
    /// the year 999999999 trapped converting the delay to Int64
    /// milliseconds. HTTPDate now reads four-digit years only.
    @Test func aNineDigitYearIsNoDate() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 999999999 08:49:37 GMT", now: now, atMost: .seconds(3600)) == nil)
    }

    /// http-origin (Fuzz/corpus/http-origin/found-*): by `Character`, a
    /// prepended concatenation mark before `/` (`\u{600}/`) or a combining
    /// mark after it (`/\u{301}`) is one `Character`, which hid the end of
    /// the authority: the origin of `http://x\u{600}/@evil.example/` was
    /// evil.example. The non-ASCII path now reads scalars.
    @Test(arguments: [
        ("http://x\u{600}/@evil.example/", "x\u{600}"),
        ("http://a\u{600}/", "a\u{600}"),
        ("http://a.example/\u{301}x", "a.example"),
        ("http://a@\u{301}b.example/", "\u{301}b.example"),
    ])
    func aMarkNextToADelimiterDoesNotHideIt(url: String, host: String) throws {
        let origin = try #require(HTTPOrigin(url: url))
        #expect(origin.host == host)
        #expect(origin.port == 80)
    }
}
