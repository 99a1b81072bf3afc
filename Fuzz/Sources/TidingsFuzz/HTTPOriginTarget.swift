@testable import TidingsHTTPClient

/// URLs whose origin scopes a watch's request headers and whose site counts
/// toward per-host limits: every poller request, redirect and webhook delivery
/// parses one (HTTPClient's `HTTPOrigin`). Any text: nil, or an http(s)
/// origin with a non-empty lower-case host without trailing dots and a port
/// in 1...65535. The byte path (ASCII URLs) and the `Character` path (the
/// rest) give the same answer on every ASCII URL, and an origin prints in a
/// form that parses back to itself on both.
enum HTTPOriginTarget {
    static func run(_ input: FuzzInput) {
        let text = input.string
        let origin = HTTPOrigin(url: text)
        let viaBytes = input.bytes.withUnsafeBufferPointer { HTTPOrigin.parse(ascii: $0) }
        let viaCharacters = HTTPOrigin.parse(characters: text)
        if let viaBytes {
            check(input.bytes.allSatisfy { $0 < 0x80 }, "byte path read non-ASCII \(text.debugDescription)")
            check(same(viaBytes, viaCharacters), "\(text.debugDescription): bytes \(describe(viaBytes)), characters \(describe(viaCharacters))")
        } else {
            check(input.bytes.contains { $0 >= 0x80 }, "byte path refused ASCII \(text.debugDescription)")
        }
        check(same(origin.map { ($0.scheme, $0.host, $0.port) }, viaCharacters), "init disagrees with the character path on \(text.debugDescription)")
        guard let origin else { return }
        check(origin.scheme == "http" || origin.scheme == "https", "scheme \(origin.scheme.debugDescription)")
        check((1...65_535).contains(origin.port), "port \(origin.port)")
        // By scalars: a prepended concatenation mark (U+0600) joins the
        // "." after it into one Character, which `hasSuffix` compares.
        check(!origin.host.isEmpty && origin.host.unicodeScalars.last != ".", "host \(origin.host.debugDescription)")
        check(origin.host == origin.host.lowercased(), "host \(origin.host.debugDescription) is not lower-case")
        // The site is the host or a whole-label suffix of it, never empty.
        let site = HTTPOrigin.site(of: origin.host)
        check(!site.isEmpty && (site == origin.host || origin.host.utf8.reversed().starts(with: ("." + site).utf8.reversed())),
              "site \(site.debugDescription) of host \(origin.host.debugDescription)")
        check(origin.siteAndPort == "\(site):\(origin.port)", "siteAndPort \(origin.siteAndPort.debugDescription)")
        let printed = origin.description
        check(HTTPOrigin(url: printed) == origin, "\(text.debugDescription) -> \(printed.debugDescription) does not parse back")
        check(same(HTTPOrigin.parse(characters: printed), (origin.scheme, origin.host, origin.port)),
              "\(printed.debugDescription) reads differently by Character")
        check(HTTPOrigin(url: printed + "/path?q#f") == origin, "\(printed.debugDescription) with a path is another origin")
        // RFC 3986 delimits the authority by scalars, whatever follows them
        // (a combining mark, a prepended concatenation mark).
        let delimiters: Set<Unicode.Scalar> = ["/", "?", "#", "\\", "@"]
        check(!origin.host.unicodeScalars.contains(where: delimiters.contains), "host \(origin.host.debugDescription) holds a delimiter")
        var hostAndPort = authority(of: text)
        if let at = hostAndPort.lastIndex(of: "@") { hostAndPort.removeSubrange(...at) }
        var lowered = String.UnicodeScalarView()
        lowered.append(contentsOf: hostAndPort)
        check(Array(String(lowered).lowercased().unicodeScalars).starts(with: origin.host.unicodeScalars),
              "host \(origin.host.debugDescription) is not where \(text.debugDescription) names its host")
    }

    /// The scalars between the first `://` and the first `/`, `?`, `#` or `\\` after it.
    private static func authority(of url: String) -> [Unicode.Scalar] {
        let scalars = Array(url.unicodeScalars)
        guard let colon = scalars.firstIndex(of: ":") else { return [] }
        return Array(scalars[colon...].dropFirst(3).prefix { !["/", "?", "#", "\\"].contains($0) })
    }

    private static func same(_ lhs: HTTPOrigin.Parts?, _ rhs: HTTPOrigin.Parts?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case let (lhs?, rhs?): lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.port == rhs.port
        default: false
        }
    }

    private static func describe(_ parts: HTTPOrigin.Parts?) -> String {
        parts.map { "\($0.scheme) \($0.host.debugDescription) \($0.port)" } ?? "nil"
    }
}
