import Foundation
import Testing
import TidingsHTTPClient

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
}
