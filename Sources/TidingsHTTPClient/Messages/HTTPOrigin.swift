/// The origin of an http(s) URL (RFC 6454: scheme, host, port): the unit a
/// watch's request headers are scoped to. `siteAndPort` is the unit of
/// politeness: the host lower-cased, trailing dots removed, so
/// `Example.com.` and `example.com` are one host, and widened to its
/// registrable domain. Parsed by hand, without Foundation, because
/// it runs on every redirect `Location` an origin sends. Every poller
/// request and webhook delivery parses one: an ASCII URL (every normalized
/// one) on its bytes, since walking it by `Character` cost about 30,000
/// instructions, 18 % of the poller's CPU per 304 check.
package struct HTTPOrigin: Hashable, Sendable, CustomStringConvertible {
    package let scheme: String
    /// Lower-case; IPv6 literals keep their brackets.
    package let host: String
    /// The explicit port or the scheme's default.
    package let port: Int

    /// Nil unless `url` is an absolute http or https URL with a host and a
    /// valid port.
    package init?(url: String) {
        var url = url
        guard let parts = url.withUTF8({ Self.parse(ascii: $0) }) ?? Self.parse(characters: url) else { return nil }
        (scheme, host, port) = parts
    }

    typealias Parts = (scheme: String, host: String, port: Int)

    /// The parse of an ASCII URL, on its bytes; `.some(nil)` when it has no
    /// http(s) origin, nil when it is not ASCII. Gives the same answer as
    /// `parse(characters:)` (HTTPOriginTests compares them).
    static func parse(ascii bytes: UnsafeBufferPointer<UInt8>) -> Parts?? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let colon = UInt8(ascii: ":")
        let slash = UInt8(ascii: "/")
        guard let schemeEnd = bytes.firstIndex(of: colon), bytes.count - schemeEnd >= 3,
            bytes[schemeEnd + 1] == slash, bytes[schemeEnd + 2] == slash
        else { return .some(nil) }
        let scheme: String
        let defaultPort: Int
        if lowercasedEquals(bytes[..<schemeEnd], "http") {
            (scheme, defaultPort) = ("http", 80)
        } else if lowercasedEquals(bytes[..<schemeEnd], "https") {
            (scheme, defaultPort) = ("https", 443)
        } else {
            return .some(nil)
        }
        let authorityEnd = bytes[(schemeEnd + 3)...].firstIndex(where: endsAuthority) ?? bytes.endIndex
        var start = schemeEnd + 3
        if let at = bytes[start..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
            start = at + 1
        }
        var hostEnd = authorityEnd
        var portDigits = authorityEnd..<authorityEnd
        if start < authorityEnd, bytes[start] == UInt8(ascii: "[") {
            guard let close = bytes[start..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else { return .some(nil) }
            hostEnd = close + 1
            if hostEnd < authorityEnd {
                guard bytes[hostEnd] == colon else { return .some(nil) }
                portDigits = (hostEnd + 1)..<authorityEnd
            }
        } else if let portColon = bytes[start..<authorityEnd].lastIndex(of: colon) {
            hostEnd = portColon
            portDigits = (portColon + 1)..<authorityEnd
        }
        while hostEnd > start, bytes[hostEnd - 1] == UInt8(ascii: ".") { hostEnd -= 1 }
        guard hostEnd > start else { return .some(nil) }
        var port = defaultPort
        if !portDigits.isEmpty {
            guard portDigits.count <= 5 else { return .some(nil) }
            port = 0
            for byte in bytes[portDigits] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return .some(nil) }
                port = port * 10 + Int(byte - UInt8(ascii: "0"))
            }
            guard (1...65_535).contains(port) else { return .some(nil) }
        }
        let host = String(unsafeUninitializedCapacity: hostEnd - start) { buffer in
            for (offset, byte) in bytes[start..<hostEnd].enumerated() {
                buffer[offset] = lowercased(byte)
            }
            return hostEnd - start
        }
        return .some((scheme, host, port))
    }

    /// The parse of any URL, by Unicode scalar. Not by `Character`: a
    /// combining mark after a delimiter (`/\u{301}`) or a prepended
    /// concatenation mark before one (`\u{600}/`) makes one `Character` of
    /// both, which hid the delimiter, so `http://x\u{600}/@evil.example/`
    /// had the origin of evil.example.
    static func parse(characters url: String) -> Parts? {
        let scalars = Substring(url).unicodeScalars
        guard let colon = scalars.firstIndex(of: ":"), scalars[colon...].starts(with: "://".unicodeScalars) else { return nil }
        let scheme = String(Substring(scalars[..<colon])).lowercased()
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let rest = scalars[scalars.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex(where: Self.endsAuthority) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        var host: Substring.UnicodeScalarView
        var portText: Substring.UnicodeScalarView?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        while host.last == "." { host = host.dropLast() }
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ ("0"..."9").contains($0) }),
                let value = Int(String(Substring(portText))), (1...65_535).contains(value)
            else { return nil }
            port = value
        }
        return (scheme, String(Substring(host)).lowercased(), port)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    private static func lowercasedEquals(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString) -> Bool {
        bytes.count == lowercase.utf8CodeUnitCount
            && zip(bytes, UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)).allSatisfy {
                lowercased($0) == $1
            }
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\\")
    }

    private static func endsAuthority(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "/" || scalar == "?" || scalar == "#" || scalar == "\\"
    }

    /// `site:port`, whatever the scheme: what per-host limits count. The
    /// site is the host's registrable domain by the Public Suffix List
    /// (`example.co.uk` for `a.b.example.co.uk`; `alice.github.io` stays
    /// apart from `bob.github.io`), so names made up under one domain, as
    /// wildcard DNS allows, share its limits instead of multiplying them.
    /// An IP literal, or a name with no registrable part (`localhost`),
    /// is its own site.
    package var siteAndPort: String {
        "\(Self.site(of: host)):\(port)"
    }

    static func site(of host: String) -> String {
        guard !isAddressLiteral(host) else { return host }
        return PublicSuffixList.registrableDomain(of: host) ?? host
    }

    /// An IPv6 literal has colons; an IPv4 one, in any of the forms URL
    /// parsers accept (`127.0.0.1`, `0x7f.1`, `2130706433`), ends in a
    /// numeric label, which no top-level domain is.
    private static func isAddressLiteral(_ host: String) -> Bool {
        let utf8 = host.utf8
        if utf8.contains(UInt8(ascii: ":")) { return true }
        let last = utf8[(utf8.lastIndex(of: UInt8(ascii: ".")).map(utf8.index(after:)) ?? utf8.startIndex)...]
        guard let first = last.first else { return false }
        if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
            return last.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || byte == UInt8(ascii: "x")
            }
        }
        return false
    }

    package var description: String {
        "\(scheme)://\(host):\(port)"
    }
}
