import Foundation
import Testing
import TidingsHTTPServer

@testable import TidingsApp

/// Failed credentials per client address, on a made-up clock.
@Suite struct AuthenticationFailureLimiterTests {
    private let start = ContinuousClock.now

    private func at(_ offset: Duration) -> ContinuousClock.Instant {
        start + offset
    }

    private func request(from address: String?) -> HTTPRequest {
        HTTPRequest(method: .get, path: "/v1/badge", remoteAddress: address)
    }

    @Test func failuresUseUpTheAddressesOwnBucketOnly() throws {
        let limiter = AuthenticationFailureLimiter(policy: RatePolicy(count: 3, per: .seconds(30)))
        let flooder = AuthenticationFailureLimiter.client(of: request(from: "127.0.0.7"))
        let neighbour = AuthenticationFailureLimiter.client(of: request(from: "127.0.0.8"))
        for _ in 0..<3 {
            try limiter.admit(flooder, now: at(.zero))
            limiter.failed(flooder, now: at(.zero))
        }
        let error = #expect(throws: HTTPError.self) { try limiter.admit(flooder, now: at(.seconds(1))) }
        #expect(error?.status == .tooManyRequests)
        #expect(error?.headers["Retry-After"] == "9", "one failure back every 10 s")
        #expect(error?.detail?.contains("at most 3 per 30 s") == true)
        try limiter.admit(neighbour, now: at(.seconds(1)))
        // One failure's worth comes back after its interval.
        try limiter.admit(flooder, now: at(.seconds(10)))
    }

    @Test func anIPv6ClientIsItsSlash64() throws {
        let limiter = AuthenticationFailureLimiter(policy: RatePolicy(count: 1, per: .seconds(60)))
        let first = AuthenticationFailureLimiter.client(of: request(from: "2001:db8:1:2::1"))
        let sameNetwork = AuthenticationFailureLimiter.client(of: request(from: "2001:db8:1:2:ffff::9"))
        let otherNetwork = AuthenticationFailureLimiter.client(of: request(from: "2001:db8:1:3::1"))
        limiter.failed(first, now: at(.zero))
        #expect(throws: HTTPError.self) { try limiter.admit(sameNetwork, now: at(.zero)) }
        try limiter.admit(otherNetwork, now: at(.zero))
    }

    @Test func requestsWithoutAnAddressAreNotLimited() throws {
        let limiter = AuthenticationFailureLimiter(policy: RatePolicy(count: 1, per: .seconds(60)))
        let unknown = AuthenticationFailureLimiter.client(of: request(from: nil))
        #expect(unknown == nil)
        limiter.failed(unknown, now: at(.zero))
        limiter.failed(unknown, now: at(.zero))
        try limiter.admit(unknown, now: at(.zero))
    }
}
