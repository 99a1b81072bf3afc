extension HTTPClientRequest {
    /// Rejects what libcurl would pass through unchecked: a scheme other
    /// than http/https, and CR, LF or NUL that would split the request.
    func validate() throws(HTTPClientError) {
        guard let separator = Self.schemeSeparator(in: url) else {
            throw HTTPClientError(code: .invalidURL, message: "the URL has no scheme (expected http:// or https://)")
        }
        let scheme = url[..<separator].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw HTTPClientError(
                code: .unsupportedScheme,
                message: "scheme \"\(scheme)\" is not supported; only http and https are"
            )
        }
        guard !url.utf8.contains(where: Self.isControlOrSpace) else {
            throw HTTPClientError(code: .invalidURL, message: "the URL contains spaces or control characters")
        }
        guard !method.isEmpty, method.utf8.allSatisfy(Self.isTokenCharacter) else {
            throw HTTPClientError(code: .invalidRequest, message: "the method is not a valid HTTP token")
        }
        for header in headers {
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(Self.isTokenCharacter) else {
                throw HTTPClientError(code: .invalidRequest, message: "header name \"\(header.name)\" is not a valid HTTP token")
            }
            // The value is never echoed: it may be a credential.
            guard !header.value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
                throw HTTPClientError(code: .invalidRequest, message: "the value of header \(header.name) contains CR, LF or NUL")
            }
        }
    }

    /// Where the first "://" starts (a byte scan: this runs for every check).
    private static func schemeSeparator(in url: String) -> String.Index? {
        let utf8 = url.utf8
        var start = utf8.startIndex
        while let colon = utf8[start...].firstIndex(of: UInt8(ascii: ":")) {
            if utf8[colon...].starts(with: "://".utf8) { return colon }
            start = utf8.index(after: colon)
        }
        return nil
    }

    private static func isControlOrSpace(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F
    }

    /// RFC 9110 tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
