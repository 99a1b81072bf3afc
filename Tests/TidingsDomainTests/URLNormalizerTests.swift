import Testing
import TidingsDomain

@Suite struct URLNormalizerTests {
    @Test(arguments: [
        ("HTTP://Example.COM", "http://example.com/"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("https://example.com:80/a", "https://example.com:80/a"),
        ("http://example.com:/a", "http://example.com/a"),
        ("http://example.com:0080/a", "http://example.com/a"),
        ("http://example.com?q=1", "http://example.com/?q=1"),
        ("http://example.com/a#section", "http://example.com/a"),
        ("http://example.com/a?x=1#frag", "http://example.com/a?x=1"),
        ("http://example.com/%7euser/%41%2d%5F", "http://example.com/~user/A-_"),
        ("http://example.com/a%2fb%3a", "http://example.com/a%2Fb%3A"),
        ("http://example.com/caf\u{E9}", "http://example.com/caf%C3%A9"),
        ("http://example.com/a|b{c}", "http://example.com/a%7Cb%7Bc%7D"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/a/b/..", "http://example.com/a/"),
        ("http://example.com/../../x", "http://example.com/x"),
        ("http://example.com/%2E%2E/x", "http://example.com/x"),
        ("http://example.com/a//b", "http://example.com/a//b"),
        ("http://example.com/a?b=%7e&c=d+e&b=1", "http://example.com/a?b=~&c=d+e&b=1"),
        ("http://example.com/?q=a/b?c", "http://example.com/?q=a/b?c"),
        ("http://[2001:DB8::1]:8080/x", "http://[2001:db8::1]:8080/x"),
        ("https://[::1]:443", "https://[::1]/"),
        ("http://127.0.0.1", "http://127.0.0.1/"),
        ("http://my_host.example.org/", "http://my_host.example.org/"),
    ])
    func normalizes(input: String, expected: String) throws {
        let url = try URLNormalizer.normalize(input)
        #expect(url.text == expected)
        #expect(try URLNormalizer.normalize(url.text) == url, "normalizing twice changes nothing")
    }

    @Test func exposesTheParts() throws {
        let url = try URLNormalizer.normalize("HTTPS://News.Example.COM:8443/feed")
        #expect(url.scheme == "https")
        #expect(url.host == "news.example.com")
        #expect(url.port == 8443)
        #expect(try URLNormalizer.normalize("http://[::1]/").host == "[::1]")
    }

    @Test(arguments: [
        ("ftp://example.com/", URLNormalizationError.Code.unsupportedScheme),
        ("javascript:alert(1)", .unsupportedScheme),
        ("file:///etc/passwd", .unsupportedScheme),
        ("example.com/path", .malformed),
        ("/relative", .malformed),
        ("http:example.com", .malformed),
        ("http://", .invalidHost),
        ("http:///path", .invalidHost),
        ("http://exa mple.com/", .malformed),
        ("http://example.com/\u{0007}", .malformed),
        ("http://user:secret@example.com/", .userInfo),
        ("http://example.com:99999/", .invalidPort),
        ("http://example.com:0/", .invalidPort),
        ("http://example.com:8o/", .invalidPort),
        ("http://b\u{FC}cher.de/", .invalidHost),
        ("http://exa%6Dple.com/", .invalidHost),
        ("http://[::1/", .invalidHost),
        ("http://[fe80::1%25eth0]/", .invalidHost),
        ("http://[]/", .invalidHost),
        ("http://example.com/%zz", .invalidPercentEncoding),
        ("http://example.com/a%2", .invalidPercentEncoding),
        ("http://example.com/" + String(repeating: "a", count: 2048), .tooLong),
        // 700 characters that each become three once encoded.
        ("http://example.com/" + String(repeating: "|", count: 700), .tooLong),
    ])
    func rejects(input: String, code: URLNormalizationError.Code) {
        #expect {
            try URLNormalizer.normalize(input)
        } throws: { error in
            (error as? URLNormalizationError)?.code == code
        }
    }

    /// Read by `Character`, a prepended concatenation mark before `?` or `#`
    /// (`\u{600}?`) or a combining mark after it (`?\u{301}`) made one
    /// `Character` of both and hid the delimiter: the query was fetched as
    /// part of the path (`%3F`) and the fragment was sent (`%23`).
    @Test(arguments: [
        ("http://example.com/p\u{600}?q=1", "http://example.com/p%D8%80?q=1"),
        ("http://example.com/p?\u{301}q=1", "http://example.com/p?%CC%81q=1"),
        ("http://example.com/p\u{600}#frag", "http://example.com/p%D8%80"),
        ("http://example.com/?q=1\u{600}#frag", "http://example.com/?q=1%D8%80"),
        ("http://example.com/p#\u{301}frag", "http://example.com/p"),
    ])
    func aMarkNextToADelimiterDoesNotHideIt(input: String, expected: String) throws {
        let url = try URLNormalizer.normalize(input)
        #expect(url.text == expected)
        #expect(url.host == "example.com")
    }

    @Test func messagesNeverEchoCredentials() {
        #expect {
            try URLNormalizer.normalize("https://admin:hunter2@example.com/")
        } throws: { error in
            guard let error = error as? URLNormalizationError else { return false }
            return !error.message.contains("hunter2") && !error.description.contains("hunter2")
        }
    }
}
