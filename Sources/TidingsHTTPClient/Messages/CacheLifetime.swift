package import FoundationEssentials

/// How much longer an origin says its response stays fresh (RFC 9111
/// §4.2): `Cache-Control: max-age` less `Age`, or, without max-age,
/// `Expires` less `Date` (or `now` when `Date` is missing or unreadable)
/// less `Age`. Nil when the response gives no positive lifetime: no
/// header, `no-store` or `no-cache` anywhere, a max-age that is not a
/// number, two different max-ages, or an `Expires` that is not a valid
/// date (which RFC 9111 reads as already expired).
///
/// The values come from servers nobody here controls: the parse is linear
/// in the header length, a number too long for any integer counts as the
/// RFC's 2^31 seconds, and the result is within `0...2^31` seconds.
package enum CacheLifetime {
    /// RFC 9111 §1.2.2: a larger delta-seconds is read as this.
    package static let longestSeconds: Int64 = 2_147_483_648

    /// The remaining freshness of a response with these header values
    /// (`cacheControl`: every `Cache-Control` field, in order).
    package static func remaining(cacheControl: [String], expires: String?, date: String?, age: String?, now: Date) -> Duration? {
        var maxAge: Int64?
        for field in cacheControl {
            for directive in field.utf8.split(separator: UInt8(ascii: ",")) {
                let parts = directive.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(decoding: trimmed(parts[0]), as: UTF8.self).lowercased()
                switch name {
                case "no-store", "no-cache":
                    return nil
                case "max-age":
                    guard parts.count == 2, let seconds = deltaSeconds(parts[1], quotesAllowed: true) else { return nil }
                    if let maxAge, maxAge != seconds { return nil }
                    maxAge = seconds
                default:
                    continue
                }
            }
        }
        let ageSeconds = age.flatMap { deltaSeconds(Substring($0).utf8, quotesAllowed: false) } ?? 0
        let lifetime: Double
        if let maxAge {
            lifetime = Double(maxAge)
        } else if let expires {
            guard let expiry = HTTPDate.parse(Substring(trimmed(expires.utf8))) else { return nil }
            let origin = date.flatMap { HTTPDate.parse(Substring(trimmed($0.utf8))) } ?? now
            lifetime = expiry.timeIntervalSince(origin)
        } else {
            return nil
        }
        let remaining = min(lifetime - Double(ageSeconds), Double(longestSeconds))
        guard remaining >= 1 else { return nil }
        return .seconds(Int64(remaining))
    }

    /// The lifetime of a response as the poller receives it.
    package static func remaining(of response: HTTPClientResponse, now: Date) -> Duration? {
        remaining(
            cacheControl: response.headerValues("Cache-Control"),
            expires: response.header("Expires"),
            date: response.header("Date"),
            age: response.header("Age"),
            now: now
        )
    }

    /// RFC 9111 delta-seconds: digits only (a quoted string of them in a
    /// directive, which recipients should accept), capped at 2^31.
    private static func deltaSeconds(_ text: some BidirectionalCollection<UInt8>, quotesAllowed: Bool) -> Int64? {
        var digits = trimmed(text)
        if quotesAllowed, digits.count >= 2, digits.first == UInt8(ascii: "\""), digits.last == UInt8(ascii: "\"") {
            digits = digits.dropFirst().dropLast()
        }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            // Saturates: every further digit keeps it at the cap.
            value = min(value * 10 + Int64(byte - UInt8(ascii: "0")), longestSeconds)
        }
        return value
    }

    /// Without HTTP's optional whitespace (spaces and tabs) around it.
    private static func trimmed<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }
}
