@testable import TidingsDomain
@testable import TidingsHTTPClient
@testable import TidingsHTTPServer
@testable import TidingsPoller

/// Header names and values from API clients (a watch's request headers),
/// and the outbound request check libcurl relies on. The input is split at
/// 0x01 bytes into method, URL, then name/value pairs. What passes validation can
/// never split a request: no CR, LF or NUL in values, token names, no
/// control bytes or spaces in the URL. The server's case-insensitive name
/// match agrees with lower-casing; the API key parser (Authorization
/// values) reads any value; an origin's validator the poller keeps passes
/// request validation when sent back.
enum RequestHeadersTarget {
    static func run(_ input: FuzzInput) {
        let parts = input.strings(separatedBy: 0x01)
        let method = parts.first ?? ""
        let url = parts.count > 1 ? parts[1] : ""
        var headers: [(name: String, value: String)] = []
        var index = 2
        while index + 1 < parts.count {
            headers.append((parts[index], parts[index + 1]))
            index += 2
        }

        _ = HTTPOrigin(url: url)
        let request = HTTPClientRequest(url: url, method: method, headers: headers)
        if (try? request.validate()) != nil {
            check(!url.utf8.contains { $0 <= 0x20 || $0 == 0x7F }, "URL \(url.debugDescription) passed")
            check(!method.isEmpty && method.utf8.allSatisfy(isToken), "method \(method.debugDescription) passed")
            for header in headers {
                check(!header.name.isEmpty && header.name.utf8.allSatisfy(isToken), "name \(header.name.debugDescription) passed")
                check(!header.value.utf8.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D }, "value of \(header.name) passed")
            }
        }

        for header in headers {
            if RequestHeaders.problem(withName: header.name) == nil {
                check(header.name.utf8.allSatisfy(isToken) && !header.name.isEmpty, "name \(header.name.debugDescription) accepted")
                check(!RequestHeaders.forbiddenNames.contains(header.name.lowercased()), "forbidden \(header.name) accepted")
            }
            if RequestHeaders.problem(withValue: header.value) == nil {
                check(!header.value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "value with control bytes accepted")
            }
            // An origin's ETag or Last-Modified, sent back in the next check.
            if let validator = TargetChecker.validator(header.value) {
                let conditional = HTTPClientRequest(url: "https://example.com/", headers: [("If-None-Match", validator)])
                check((try? conditional.validate()) != nil, "a kept validator fails request validation")
            }
            if let prefix = APIKeyToken.prefix(of: header.value) {
                check(header.value.hasPrefix(prefix), "API key prefix \(prefix) of another token")
            }
            let matches = HTTPHeaders.namesMatch(header.name, header.value)
            check(matches == (asciiLowercased(header.name) == asciiLowercased(header.value)), "namesMatch(\(header.name.debugDescription), \(header.value.debugDescription))")
        }
        let stored = RequestHeaders(fields: Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }))
        check(stored.names.allSatisfy { $0 == $0.lowercased() }, "names not lower-cased: \(stored.names)")
        _ = stored.canonicalText
    }

    private static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }

    /// RFC 9110 tchar.
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
