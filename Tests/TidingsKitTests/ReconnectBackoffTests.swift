import Testing
import TidingsTestSupport

@testable import TidingsKit

@Suite struct ReconnectBackoffTests {
    @Test func delaysDoubleFromTheBaseWithJitterUpToTheCap() {
        var random = SeededRandomNumberGenerator(seed: 7)
        var backoff = ReconnectBackoff(base: .seconds(1), cap: .seconds(8))
        for (attempt, ceiling) in [1, 2, 4, 8, 8, 8].enumerated() {
            let delay = backoff.nextDelay(using: &random)
            #expect(delay >= .milliseconds(ceiling * 500) && delay <= .seconds(ceiling), "attempt \(attempt): \(delay)")
        }
        backoff.connected()
        let fresh = backoff.nextDelay(using: &random)
        #expect(fresh >= .milliseconds(500) && fresh <= .seconds(1))
    }

    @Test func theServersRetryIsTheBase() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var backoff = ReconnectBackoff()
        backoff.base = .milliseconds(3000)
        let delays = (0..<200).map { _ -> Duration in
            backoff.connected()
            return backoff.nextDelay(using: &random)
        }
        #expect(delays.allSatisfy { $0 >= .milliseconds(1500) && $0 <= .milliseconds(3000) })
        #expect(Set(delays).count > 50, "jittered, not all the same")
    }
}
