import Testing
import TidingsTestSupport

@testable import TidingsHTTPClient

@Suite struct HTTPOriginTests {
    @Test(arguments: [
        ("http://Example.COM/path", "http", "example.com", 80),
        ("https://example.com./x?y#z", "https", "example.com", 443),
        ("HTTPS://example.com:8443", "https", "example.com", 8443),
        ("http://user:pass@example.com:81/", "http", "example.com", 81),
        ("http://[::1]:8080/", "http", "[::1]", 8080),
        ("http://[FE80::1]/", "http", "[fe80::1]", 80),
        ("http://127.0.0.1:9/", "http", "127.0.0.1", 9),
        ("http://example.com:/", "http", "example.com", 80),
        // Not ASCII: parsed by Character.
        ("http://BÜCHER.example:8080/straße", "http", "bücher.example", 8080),
        ("https://例え.テスト./", "https", "例え.テスト", 443),
    ])
    func parses(_ url: String, _ scheme: String, _ host: String, _ port: Int) throws {
        let origin = try #require(HTTPOrigin(url: url))
        #expect(origin.scheme == scheme)
        #expect(origin.host == host)
        #expect(origin.port == port)
    }

    @Test(arguments: [
        "ftp://example.com/", "example.com/path", "http:///path", "http://:80/", "http://example.com:0/",
        "http://example.com:65536/", "http://example.com:8o/", "http://[::1/", "http://[::1]x/", "", "http://./",
        "http://example.com:-1/", "http://example.com:000080000/",
    ])
    func refuses(_ url: String) {
        #expect(HTTPOrigin(url: url) == nil)
    }

    /// ASCII URLs are parsed on their bytes; the answer must be the one of
    /// the Character walk, which other URLs still take: checked on tricky
    /// cases and on strings made of the characters the parse looks at.
    @Test func bytesAgreeWithCharacters() {
        var urls = [
            "http://Example.COM/path", "HTTPS://a:1", "hTTp://a.", "http://a...:80", "https://[::1]:", "http://[::1]:x",
            "http://u@[::1]@h:9/", "http://a@b@c:1/", "http://a:b:c/", "http://a\\b:1", "http://a?b:1", "http://a#b:1",
            "http://a\r\n:80/", "http:/\r\n/a", "http://a.\r\n", "http://:", "http://@", "http://[", "http://[]", "http://]",
            "http://a:00080", "http://a:+80", "http://a:65535", "http://a:99999", "httpx://a", "http:a", "http//a", ":", "://a",
            "https://", "http://a:8O", "http://A:0", "http://a/b:c@d:1", "http://x:1@y/z",
        ]
        let alphabet = Array("hHtTpPsS:/[]@.?#\\aZ0189\r\n -")
        var random = SeededRandomNumberGenerator(seed: 14)
        for _ in 0..<20_000 {
            let length = Int(random.next() % 16)
            let tail = String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            urls.append((random.next() % 2 == 0 ? "http://" : random.next() % 2 == 0 ? "HTTPS://" : "") + tail)
        }
        let text = { (parts: HTTPOrigin.Parts?) in parts.map { "\($0.scheme) \($0.host) \($0.port)" } ?? "nil" }
        for url in urls {
            var copy = url
            guard let byBytes = copy.withUTF8({ HTTPOrigin.parse(ascii: $0) }) else {
                Issue.record("not parsed as ASCII: \(url.debugDescription)")
                continue
            }
            #expect(text(byBytes) == text(HTTPOrigin.parse(characters: url)), "\(url.debugDescription)")
        }
    }

    /// Same scheme, host and port; a downgrade to http or another port is
    /// another origin.
    @Test func comparesAsOrigins() throws {
        let base = try #require(HTTPOrigin(url: "https://api.example.com/v1"))
        #expect(HTTPOrigin(url: "https://API.example.com.:443/other") == base)
        #expect(HTTPOrigin(url: "http://api.example.com/v1") != base)
        #expect(HTTPOrigin(url: "https://api.example.com:8443/v1") != base)
        #expect(HTTPOrigin(url: "https://example.com/v1") != base)
    }

    /// Politeness counts sites: every name under one registrable domain
    /// (the Public Suffix List's, private section included) is one, an
    /// address literal or a name with no registrable part is its own.
    @Test(arguments: [
        ("http://a.b.example.co.uk/", "example.co.uk:80"),
        ("https://WWW.Example.com./x", "example.com:443"),
        ("http://x1.attacker.example:8080/", "attacker.example:8080"),
        ("https://alice.github.io/", "alice.github.io:443"),
        ("https://pages.alice.github.io/", "alice.github.io:443"),
        ("http://co.uk/", "co.uk:80"),
        ("http://localhost:9/", "localhost:9"),
        ("http://a.site.localhost:9/", "site.localhost:9"),
        ("http://127.0.0.1:9/", "127.0.0.1:9"),
        ("http://10.0.0.1/", "10.0.0.1:80"),
        ("http://0x7f.1/", "0x7f.1:80"),
        ("http://2130706433/", "2130706433:80"),
        ("http://[::1]:8080/", "[::1]:8080"),
        ("http://bücher.example/", "bücher.example:80"),
        ("http://shop.xn--bcher-kva.example/", "xn--bcher-kva.example:80"),
        // Found by fuzzing: a NUL would cut the name short in C.
        ("http://a.b\u{0}.example/", "a.b\u{0}.example:80"),
    ])
    func groupsBySite(_ url: String, _ site: String) throws {
        #expect(try #require(HTTPOrigin(url: url)).siteAndPort == site)
    }
}

@Suite struct RedirectLocationTests {
    @Test(arguments: [
        ("/next", "http://a.example/dir/page", "http://a.example/next"),
        ("next?x=1", "http://a.example/dir/page", "http://a.example/dir/next?x=1"),
        ("//b.example/p", "https://a.example/", "https://b.example/p"),
        ("https://b.example:8443/p#frag", "http://a.example/", "https://b.example:8443/p"),
        ("  http://b.example/  ", "http://a.example/", "http://b.example/"),
    ])
    func resolves(_ location: String, _ base: String, _ expected: String) {
        #expect(RedirectLocation.resolve(location, against: base) == expected)
    }

    @Test(arguments: [
        "ftp://b.example/", "javascript:alert(1)", "", "http://b.example/a b", "http://b.example/\u{0}",
        "file:///etc/passwd", String(repeating: "a", count: 9000),
    ])
    func refuses(_ location: String) {
        #expect(RedirectLocation.resolve(location, against: "http://a.example/") == nil)
    }
}
