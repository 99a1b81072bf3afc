import Foundation
import Testing
import TidingsHTTPClient

@Suite struct RetryAfterTests {
    // Sun, 06 Nov 1994 08:48:37 GMT
    private let now = Date(timeIntervalSince1970: 784_111_717)
    private let day: Duration = .seconds(86_400)

    @Test func acceptsDelaySeconds() {
        #expect(RetryAfter.delay(from: "120", now: now, atMost: day) == .seconds(120))
        #expect(RetryAfter.delay(from: " 3 ", now: now, atMost: day) == .seconds(3))
        #expect(RetryAfter.delay(from: "0", now: now, atMost: day) == .zero)
    }

    @Test func acceptsIMFFixdatesAsADelayFromNow() {
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now, atMost: day) == .seconds(60))
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:50:37 GMT", now: now, atMost: day) == .seconds(120))
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:48:00 GMT", now: now, atMost: day) == .zero, "a date in the past means now")
    }

    @Test func refusesAnythingElse() {
        for value in [
            "-5", "soon", "", " ", "+5", "5s", "1.5", "0x10", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:60:37 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nov -994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT\0",
            "Sun, 06 Nov 1994 -8:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMTX",
        ] {
            #expect(RetryAfter.delay(from: value, now: now, atMost: day) == nil, "\(value)")
        }
    }

    /// A receiver or origin may send anything: values beyond the cap, beyond
    /// Int64, or dates far in the future are the cap, never a trap.
    @Test func absurdValuesAreCapped() {
        for value in [
            "86401", "9223372036854775807", "9223372036854775808", String(repeating: "9", count: 400),
            "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 2990 00:00:00 GMT",
        ] {
            #expect(RetryAfter.delay(from: value, now: now, atMost: day) == day, "\(value)")
        }
        #expect(RetryAfter.delay(from: "Mon, 01 Jan 0001 00:00:00 GMT", now: now, atMost: day) == .zero)
        #expect(RetryAfter.delay(from: "60", now: now, atMost: .zero) == .zero)
        #expect(RetryAfter.delay(from: "60", now: now, atMost: .seconds(-5)) == .zero, "a negative cap is no delay")
    }

    @Test func aNowFarFromTheDateStaysInRange() {
        // (Absurd dates stay out of #expect: Foundation traps printing them.)
        let delays = [1e15, -1e15, .nan].map {
            RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: Date(timeIntervalSince1970: $0), atMost: day)
        }
        #expect(delays == [.zero, day, .zero])
    }
}

@Suite struct HTTPDateTests {
    @Test func parsesIMFFixdate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
    }

    @Test func refusesNonASCIIAndOddLengths() {
        #expect(HTTPDate.parse("Sün, 06 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse(String(repeating: "A", count: 29)) == nil)
        #expect(HTTPDate.parse(String(repeating: "9", count: 10_000)) == nil)
    }
}
