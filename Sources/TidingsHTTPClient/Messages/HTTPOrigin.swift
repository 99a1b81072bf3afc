/// The origin of an http(s) URL (RFC 6454: scheme, host, port): the unit a
/// watch's request headers are scoped to. `hostAndPort` is the unit of
/// politeness: the host lower-cased, trailing dots removed, so
/// `Example.com.` and `example.com` are one host. Parsed by hand, without Foundation, because
/// it runs on every redirect `Location` an origin sends.
package struct HTTPOrigin: Hashable, Sendable, CustomStringConvertible {
    package let scheme: String
    /// Lower-case; IPv6 literals keep their brackets.
    package let host: String
    /// The explicit port or the scheme's default.
    package let port: Int

    /// Nil unless `url` is an absolute http or https URL with a host and a
    /// valid port.
    package init?(url: String) {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let scheme = url[..<colon].lowercased()
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex(where: Self.endsAuthority) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        while host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(portText), (1...65_535).contains(value)
            else { return nil }
            port = value
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }

    private static func endsAuthority(_ character: Character) -> Bool {
        character == "/" || character == "?" || character == "#" || character == "\\"
    }

    /// `host:port`, whatever the scheme: what per-host limits count.
    package var hostAndPort: String {
        "\(host):\(port)"
    }

    package var description: String {
        "\(scheme)://\(host):\(port)"
    }
}
