import FoundationEssentials
import TidingsHTTPClient

/// `Cache-Control`, `Expires`, `Date` and `Age` from origins, which may
/// lengthen a target's next delay (decision 0028). Any text, split at NUL
/// bytes into the four values: nil or a lifetime within 1 s and 2^31 s;
/// and `max-age=<n>` alone gives exactly n, capped.
enum CacheLifetimeTarget {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func run(_ input: FuzzInput) {
        let parts = input.bytes.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let field = { (index: Int) in index < parts.count ? parts[index] : nil }
        let cacheControl = field(0).map { $0.split(separator: "\n").map(String.init) } ?? []
        if let lifetime = CacheLifetime.remaining(cacheControl: cacheControl, expires: field(1), date: field(2), age: field(3), now: now) {
            check(lifetime >= .seconds(1) && lifetime <= .seconds(CacheLifetime.longestSeconds),
                  "lifetime \(lifetime) outside 1...2^31 s for \(parts.debugDescription)")
        }
        let seconds = input.int64Prefix.magnitude
        let exact = CacheLifetime.remaining(cacheControl: ["max-age=\(seconds)"], expires: nil, date: nil, age: nil, now: now)
        let expected = seconds == 0 ? nil : Duration.seconds(Int64(min(seconds, UInt64(CacheLifetime.longestSeconds))))
        check(exact == expected, "max-age=\(seconds) gave \(String(describing: exact))")
    }
}
