import Foundation
import Testing
import TidingsDomain

/// Inputs the page-cursor fuzz target found (docs/FUZZING.md); each is also
/// a file in Fuzz/corpus/page-cursor so the fuzzer starts from it.
@Suite struct PageCursorFuzzRegressionTests {
    /// int64-max: base64url("9223372036854775807.<uuid>"), a cursor at the
    /// largest microsecond count, trapped when its token was written again
    /// (the Double rounds up past Int64.max).
    @Test(arguments: [
        "9223372036854775807.0193a2eb-c165-7532-bdf6-1c2c295d395e",
        "-9223372036854775808.0193a2eb-c165-7532-bdf6-1c2c295d395e",
    ])
    func extremeTimestampsAreRefusedOrRoundTrip(text: String) {
        let token = Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        guard let cursor = PageCursor(token: token) else { return }
        #expect(PageCursor(token: cursor.token) == cursor)
    }
}
