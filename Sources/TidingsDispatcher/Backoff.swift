/// Doubling delays after consecutive failures, from 250 ms up to 5 s.
struct Backoff {
    static let first: Duration = .milliseconds(250)
    static let longest: Duration = .seconds(5)

    private(set) var failures = 0

    mutating func next() -> Duration {
        defer { failures += 1 }
        var delay = Self.first
        for _ in 0..<min(failures, 10) { delay *= 2 }
        return min(delay, Self.longest)
    }

    mutating func reset() {
        failures = 0
    }
}
