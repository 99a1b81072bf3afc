import Testing
import TidingsIP

@testable import TidingsHTTPServer

/// Addresses and networks themselves are tested in TidingsIPTests.
@Suite struct ClientAddressTests {
    /// trusted-proxies (Fuzz/corpus/trusted-proxies/found-prepended-mark):
    /// split by `Character`, a client's `1.2.3.4\u{600}` swallowed the comma
    /// of the proxy's `, <client>`, so the walk ended at the proxy and every
    /// client behind it could pass as the proxy. Commas are read by scalar.
    @Test func aMarkNextToACommaDoesNotHideIt() throws {
        let proxies = TrustedProxies([try #require(IPNetwork("10.0.0.0/8"))])
        let proxy = try #require(IPAddress("10.0.0.2"))
        #expect(proxies.client(peer: proxy, forwardedFor: ["1.2.3.4\u{600}, 203.0.113.9"]).description == "203.0.113.9")
        #expect(proxies.client(peer: proxy, forwardedFor: ["203.0.113.9,\u{301}10.0.0.7"]).description == "10.0.0.2")
        #expect(proxies.client(peer: proxy, forwardedFor: ["1.2.3.4\u{301},203.0.113.9"]).description == "203.0.113.9")
    }

    @Test func theClientIsTheRightmostUntrustedHop() throws {
        let proxies = TrustedProxies([try #require(IPNetwork("10.0.0.0/8")), try #require(IPNetwork("fd00::/8"))])
        let proxy = try #require(IPAddress("10.0.0.2"))
        func client(_ values: [String], peer: IPAddress = proxy) -> String {
            proxies.client(peer: peer, forwardedFor: values).description
        }
        #expect(client(["203.0.113.9"]) == "203.0.113.9")
        #expect(client(["1.1.1.1, 203.0.113.9, 10.0.0.7"]) == "203.0.113.9")
        #expect(client(["1.1.1.1,203.0.113.9", "10.0.0.7,fd00::3"]) == "203.0.113.9")
        #expect(client(["2001:db8::9, fd00::1"]) == "2001:db8::9")
        #expect(client(["203.0.113.9:5511"]) == "203.0.113.9")
        #expect(client(["[2001:db8::9]:443"]) == "2001:db8::9")
        // Every hop a proxy: the leftmost one, where the chain began.
        #expect(client(["10.0.0.9, 10.0.0.8"]) == "10.0.0.9")
        // A hop that is no address ends the walk at the proxy that wrote it.
        #expect(client(["203.0.113.9, unknown, 10.0.0.8"]) == "10.0.0.8")
        #expect(client(["203.0.113.9,"]) == "10.0.0.2")
        #expect(client([String(repeating: "1", count: 100_000)]) == "10.0.0.2")
        // An IPv4-mapped hop is its IPv4 host, as a dual-stack peer is.
        #expect(client(["::ffff:203.0.113.9"]) == "203.0.113.9")
        #expect(client(["203.0.113.9, ::ffff:10.0.0.7"]) == "203.0.113.9")
        // Not from a proxy: the header is ignored.
        #expect(client(["203.0.113.9"], peer: try #require(IPAddress("192.0.2.1"))) == "192.0.2.1")
    }
}
