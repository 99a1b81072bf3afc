import Testing
import TidingsHTTPClient

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

    /// Same scheme, host and port; a downgrade to http or another port is
    /// another origin.
    @Test func comparesAsOrigins() throws {
        let base = try #require(HTTPOrigin(url: "https://api.example.com/v1"))
        #expect(HTTPOrigin(url: "https://API.example.com.:443/other") == base)
        #expect(HTTPOrigin(url: "http://api.example.com/v1") != base)
        #expect(HTTPOrigin(url: "https://api.example.com:8443/v1") != base)
        #expect(HTTPOrigin(url: "https://example.com/v1") != base)
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

    @Test(arguments: ["ftp://b.example/", "javascript:alert(1)", "", "http://b.example/a b", "http://b.example/\u{0}",
                      "file:///etc/passwd", String(repeating: "a", count: 9000)])
    func refuses(_ location: String) {
        #expect(RedirectLocation.resolve(location, against: "http://a.example/") == nil)
    }
}
