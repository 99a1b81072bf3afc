import Foundation
import Testing
import TidingsHTTPClient

@Suite struct RetryAfterTests {
    // Sun, 06 Nov 1994 08:48:37 GMT
    private let now = Date(timeIntervalSince1970: 784_111_717)

    @Test func acceptsDelaySeconds() {
        #expect(RetryAfter.delay(from: "120", now: now) == .seconds(120))
        #expect(RetryAfter.delay(from: " 3 ", now: now) == .seconds(3))
    }

    @Test func acceptsIMFFixdatesAsADelayFromNow() {
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(60))
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .seconds(120))
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:48:00 GMT", now: now) == .zero, "a date in the past means now")
    }

    @Test func refusesAnythingElse() {
        #expect(RetryAfter.delay(from: "-5", now: now) == nil)
        #expect(RetryAfter.delay(from: "soon", now: now) == nil)
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 UTC", now: now) == nil)
    }
}
