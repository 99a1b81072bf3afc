import Testing
import TidingsHTTPClient
import TidingsIP

@Suite struct SSRFGuardTests {
    let guardian = SSRFGuard(allowPrivateTargets: false)

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001:81b::200e", "::ffff:8.8.8.8"])
    func publicAddressesAreAllowed(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(guardian.check(address) == nil)
    }

    @Test(arguments: [
        ("0.0.0.0", "0.0.0.0/8", "this-network"),
        ("10.0.0.5", "10.0.0.0/8", "private"),
        ("100.64.0.1", "100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.1", "127.0.0.0/8", "loopback"),
        ("169.254.169.254", "169.254.0.0/16", "link-local"),
        ("172.16.0.1", "172.16.0.0/12", "private"),
        ("172.31.255.255", "172.16.0.0/12", "private"),
        ("192.0.0.8", "192.0.0.0/24", "IETF protocol assignment"),
        ("192.0.2.1", "192.0.2.0/24", "documentation"),
        ("192.88.99.1", "192.88.99.0/24", "6to4 relay anycast"),
        ("192.168.1.1", "192.168.0.0/16", "private"),
        ("198.19.0.1", "198.18.0.0/15", "benchmarking"),
        ("198.51.100.7", "198.51.100.0/24", "documentation"),
        ("203.0.113.9", "203.0.113.0/24", "documentation"),
        ("224.0.0.1", "224.0.0.0/4", "multicast"),
        ("240.0.0.1", "240.0.0.0/4", "reserved"),
        ("255.255.255.255", "240.0.0.0/4", "reserved"),
        ("::", "::/128", "unspecified"),
        ("::1", "::1/128", "loopback"),
        ("::a00:1", "::/96", "IPv4-compatible (deprecated)"),
        ("::ffff:127.0.0.1", "127.0.0.0/8 via ::ffff:0:0/96", "loopback"),
        ("::ffff:10.0.0.1", "10.0.0.0/8 via ::ffff:0:0/96", "private"),
        ("::ffff:169.254.169.254", "169.254.0.0/16 via ::ffff:0:0/96", "link-local"),
        ("64:ff9b::a9fe:a9fe", "169.254.0.0/16 via 64:ff9b::/96", "link-local"),
        ("2002:7f00:1::", "127.0.0.0/8 via 2002::/16", "loopback"),
        ("64:ff9b:1::a00:1", "64:ff9b:1::/48", "local-use NAT64"),
        ("64:ff9b:1:ffff::1", "64:ff9b:1::/48", "local-use NAT64"),
        ("100::1", "100::/64", "discard-only"),
        ("100:0:0:1::1", "100:0:0:1::/64", "dummy prefix"),
        ("2001:db8::1", "2001:db8::/32", "documentation"),
        ("2001::1", "2001::/23", "IETF special-purpose"),
        ("2001:1ff:ffff::1", "2001::/23", "IETF special-purpose"),
        ("3fff::1", "3fff::/20", "documentation"),
        ("3fff:fff:ffff::1", "3fff::/20", "documentation"),
        ("5f00::1", "5f00::/16", "segment routing SIDs"),
        ("fd00::1", "fc00::/7", "unique-local"),
        ("fc00::1", "fc00::/7", "unique-local"),
        ("fe80::1", "fe80::/10", "link-local"),
        ("fec0::1", "fec0::/10", "site-local (deprecated)"),
        ("ff02::1", "ff00::/8", "multicast"),
    ])
    func blockedAddressesAreRefusedWithTheirRange(_ text: String, _ range: String, _ reason: String) throws {
        let address = try #require(IPAddress(text))
        let refusal = try #require(guardian.check(address))
        #expect(refusal.range == range)
        #expect(refusal.reason == reason)
    }

    @Test func rangeEdgesAreExact() throws {
        #expect(guardian.check(try #require(IPAddress("100.63.255.255"))) == nil)
        #expect(guardian.check(try #require(IPAddress("100.128.0.0"))) == nil)
        #expect(guardian.check(try #require(IPAddress("172.32.0.0"))) == nil)
        #expect(guardian.check(try #require(IPAddress("11.0.0.0"))) == nil)
        #expect(guardian.check(try #require(IPAddress("2002:808:808::"))) == nil)
        #expect(guardian.check(try #require(IPAddress("2001:200::1"))) == nil)
        #expect(guardian.check(try #require(IPAddress("64:ff9b:2::1"))) == nil)
        #expect(guardian.check(try #require(IPAddress("100:0:0:2::1"))) == nil)
        #expect(guardian.check(try #require(IPAddress("3fff:1000::1"))) == nil)
        #expect(guardian.check(try #require(IPAddress("5f01::1"))) == nil)
    }

    @Test func allowingPrivateTargetsAllowsEverything() throws {
        let permissive = SSRFGuard(allowPrivateTargets: true)
        for text in ["127.0.0.1", "::1", "169.254.169.254", "::ffff:10.0.0.1", "ff02::1"] {
            #expect(permissive.check(try #require(IPAddress(text))) == nil)
        }
    }

    @Test func checkHostRefusesNamesResolvingToLoopback() throws {
        do {
            try guardian.checkHost("localhost")
            Issue.record("localhost was allowed")
        } catch {
            #expect(error.code == .blockedAddress)
            #expect(error.message.contains("loopback"))
            #expect(error.message.contains("TIDINGS_ALLOW_PRIVATE_TARGETS=true"))
        }
    }

    @Test func checkHostRefusesLiteralsWithoutDNS() {
        #expect(throws: HTTPClientError.self) { try guardian.checkHost("[::1]") }
        #expect(throws: HTTPClientError.self) { try guardian.checkHost("169.254.169.254") }
        do {
            try guardian.checkHost("10.0.0.5")
        } catch {
            #expect(
                error.message == "address 10.0.0.5 is in a private range (10.0.0.0/8); set TIDINGS_ALLOW_PRIVATE_TARGETS=true to allow it")
        }
    }

    /// Not resolvable now is not a reason to refuse; neither is a resolver
    /// that does not answer in time.
    @Test func checkHostAcceptsNamesThatDoNotResolve() throws {
        let started = ContinuousClock.now
        try guardian.checkHost("no-such-host.invalid")
        #expect(ContinuousClock.now - started < SSRFGuard.hostCheckTimeout + .seconds(3))
    }

    /// A tenant sees that a target is refused, never which address or range.
    @Test func userDescriptionsNameNoAddress() throws {
        do {
            try guardian.checkHost("10.0.0.5")
            Issue.record("10.0.0.5 was allowed")
        } catch {
            #expect(error.userDescription == "blocked_address: the target is not allowed: its address is not publicly reachable")
        }
        let curlText = HTTPClientError(
            code: .connectionFailed, message: "Failed to connect to 10.1.2.3 port 8080 after 1 ms: Couldn't connect to server")
        #expect(curlText.userDescription == "connection_failed: could not connect to the host")
    }

    @Test func checkHostAcceptsPublicLiteralsAndPrivateWhenAllowed() throws {
        try guardian.checkHost("8.8.8.8")
        try guardian.checkHost("[2606:4700:4700::1111]")
        try SSRFGuard(allowPrivateTargets: true).checkHost("localhost")
    }
}
