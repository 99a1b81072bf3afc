/// Doubling delays after consecutive failures, from 250 ms up to 5 s: the
/// dispatchers' claim loops and `WriteBehindQueue` while the database is
/// away.
package struct Backoff: Sendable {
    package static let first: Duration = .milliseconds(250)
    package static let longest: Duration = .seconds(5)

    package private(set) var failures = 0

    package init() {}

    package mutating func next() -> Duration {
        defer { failures += 1 }
        var delay = Self.first
        for _ in 0..<min(failures, 10) { delay *= 2 }
        return min(delay, Self.longest)
    }

    package mutating func reset() {
        failures = 0
    }
}
