import Testing
@testable import TidingsHTTPServer

@Suite struct ClientAddressTests {
    @Test(arguments: [
        "10.0.0.0/8", "192.0.2.7", "192.0.2.7/32", "0.0.0.0/0", "fd00::/8", "::1", "::/0", "2001:db8::/64",
    ])
    func networksParse(text: String) {
        #expect(IPNetwork(text) != nil)
    }

    @Test(arguments: [
        "", "/8", "10.1.2.3/8", "10.0.0.0/33", "fd00::1/8", "::/129", "10.0.0.0/", "10.0.0.0/+8",
        "10.0.0.0/-1", "10.0.0.0/0008", "10.0.0.0/99999999999999999999999", "proxy.local", "10.0.0.0/8/8",
        "1.2.3.4 ", "[::1]", "1.2.3.4\u{0}junk",
    ])
    func malformedNetworksAreRefused(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test func networksContainTheirAddressesOnly() throws {
        let ten = try #require(IPNetwork("10.0.0.0/8"))
        #expect(ten.contains(try #require(IPAddress("10.255.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("::a00:1"))))
        let everyIPv4 = try #require(IPNetwork("0.0.0.0/0"))
        #expect(everyIPv4.contains(try #require(IPAddress("203.0.113.9"))))
        #expect(!everyIPv4.contains(try #require(IPAddress("2001:db8::1"))))
        let sixtyFour = try #require(IPNetwork("2001:db8:0:1::/64"))
        #expect(sixtyFour.contains(try #require(IPAddress("2001:db8:0:1:ffff::1"))))
        #expect(!sixtyFour.contains(try #require(IPAddress("2001:db8:0:2::1"))))
        #expect(ten.description == "10.0.0.0/8")
        #expect(IPNetwork("::1")?.description == "::1")
    }

    @Test func theCapCountsIPv4AddressesAndIPv6Slash64s() throws {
        let one = try #require(IPAddress("2001:db8:0:1::1"))
        let sameSlash64 = try #require(IPAddress("2001:db8:0:1:abcd::2"))
        #expect(one.clientKey == sameSlash64.clientKey)
        #expect(one.clientKey != IPAddress("2001:db8:0:2::1")?.clientKey)
        #expect(IPAddress("192.0.2.1")?.clientKey != IPAddress("192.0.2.2")?.clientKey)
    }

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
        // Not from a proxy: the header is ignored.
        #expect(client(["203.0.113.9"], peer: try #require(IPAddress("192.0.2.1"))) == "192.0.2.1")
    }
}
