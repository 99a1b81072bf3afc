/// Brings an http(s) URL into one canonical spelling with the RFC 3986
/// normalizations that never change what is fetched: lower-case scheme and
/// host, no default port, "/" for an empty path, dot segments removed,
/// percent-encoding normalized (unreserved characters decoded, hex in upper
/// case, characters that need it encoded), fragment dropped (it never
/// reaches the server). The query is kept as is otherwise: parameter order
/// can matter to a server.
package enum URLNormalizer {
    package static let maximumLength = 2048

    package static func normalize(_ input: String) throws(URLNormalizationError) -> NormalizedURL {
        guard input.unicodeScalars.count <= maximumLength else {
            throw URLNormalizationError(.tooLong, "must be at most \(maximumLength) characters")
        }
        guard !input.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw URLNormalizationError(.malformed, "must not contain spaces or control characters")
        }
        // Delimiters by Unicode scalar, not by `Character`: a combining mark
        // after one (`?\u{301}`) or a prepended concatenation mark before it
        // (`\u{600}?`) makes one `Character` of both and hid it, so
        // `http://a.example/p\u{600}?q=1` fetched the path `/p%D8%80%3Fq=1`
        // and a fragment behind a mark was sent as part of the path.
        let scalars = Substring(input).unicodeScalars
        guard let colon = scalars.firstIndex(of: ":"), isScheme(Substring(scalars[..<colon])) else {
            throw URLNormalizationError(.malformed, "must be an absolute http or https URL")
        }
        let scheme = Substring(scalars[..<colon]).lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw URLNormalizationError(.unsupportedScheme, "scheme \"\(scheme)\" is not supported; use http or https")
        }
        var rest = scalars[scalars.index(after: colon)...]
        guard rest.starts(with: "//".unicodeScalars) else {
            throw URLNormalizationError(.malformed, "must be an absolute http or https URL")
        }
        rest = rest.dropFirst(2)
        if let hash = rest.firstIndex(of: "#") {
            rest = rest[..<hash]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let (host, port) = try authority(Substring(rest[..<authorityEnd]), defaultPort: scheme == "https" ? 443 : 80)

        let pathAndQuery = rest[authorityEnd...]
        let queryStart = pathAndQuery.firstIndex(of: "?")
        var path = try PercentEncoding.normalize(Substring(pathAndQuery[..<(queryStart ?? pathAndQuery.endIndex)]), allowing: .path)
        path = DotSegments.remove(from: path.isEmpty ? "/" : path)
        var query = ""
        if let queryStart {
            query =
                "?" + (try PercentEncoding.normalize(Substring(pathAndQuery[pathAndQuery.index(after: queryStart)...]), allowing: .query))
        }

        let url = NormalizedURL(scheme: scheme, host: host, port: port, pathAndQuery: path + query)
        guard url.text.utf8.count <= maximumLength else {
            throw URLNormalizationError(.tooLong, "must be at most \(maximumLength) characters once normalized")
        }
        return url
    }

    /// `host[:port]` or `[v6]:port`; user info is refused because credentials
    /// belong in request headers, which are never shown again.
    private static func authority(_ authority: Substring, defaultPort: Int) throws(URLNormalizationError) -> (String, Int?) {
        guard !authority.contains("@") else {
            throw URLNormalizationError(.userInfo, "must not contain a user name or password; send credentials in headers")
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw URLNormalizationError(.invalidHost, "has an IPv6 address without a closing bracket")
            }
            host = authority[...close]
            let afterHost = authority[authority.index(after: close)...]
            if !afterHost.isEmpty {
                guard afterHost.hasPrefix(":") else {
                    throw URLNormalizationError(.invalidHost, "has characters after the IPv6 address")
                }
                portText = afterHost.dropFirst()
            }
            guard host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.count > 2 else {
                throw URLNormalizationError(.invalidHost, "has an invalid IPv6 address")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else {
            throw URLNormalizationError(.invalidHost, "has no host")
        }
        guard host.first == "[" || host.unicodeScalars.allSatisfy(isHostCharacter) else {
            throw URLNormalizationError(
                .invalidHost,
                "has an invalid host name (letters, digits, '-', '.' and '_' only; international names in their xn-- form)"
            )
        }
        return (host.lowercased(), try port(portText, defaultPort: defaultPort))
    }

    /// nil for no port, an empty port (RFC 3986 allows `host:`) and the
    /// scheme's default.
    private static func port(_ text: Substring?, defaultPort: Int) throws(URLNormalizationError) -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text), (1...65_535).contains(port) else {
            throw URLNormalizationError(.invalidPort, "has an invalid port (expected 1 to 65535)")
        }
        return port == defaultPort ? nil : port
    }

    /// RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    private static func isHostCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_": true
        default: false
        }
    }
}
