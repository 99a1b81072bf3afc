/// How long an event stream waits before reconnecting: the server's
/// `retry:` (1 s until it sends one) doubled after each failed attempt up
/// to a cap, with "equal jitter" (a uniform draw from the upper half), so
/// that the clients a restarting server dropped do not return together.
/// A connection that worked starts the doubling over.
struct ReconnectBackoff {
    /// The base delay: the server's `retry:`, or 1 s.
    var base: Duration = .seconds(1)
    /// The longest delay, however many attempts failed.
    var cap: Duration = .seconds(60)
    private(set) var failures = 0

    /// The delay before the next attempt; counts it as a failure.
    mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Duration {
        var delay = base
        for _ in 0..<min(failures, 16) where delay < cap { delay *= 2 }
        delay = min(max(delay, .milliseconds(1)), max(cap, base))
        failures += 1
        let milliseconds = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
        let half = milliseconds / 2
        return .milliseconds(half + Int64.random(in: 0...max(0, milliseconds - half), using: &generator))
    }

    /// A connection delivered its stream: the next drop waits only `base`.
    mutating func connected() {
        failures = 0
    }
}
