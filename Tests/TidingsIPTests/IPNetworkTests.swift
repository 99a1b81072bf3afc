import Testing
import TidingsIP

@Suite struct IPNetworkTests {
    @Test(arguments: [
        "10.0.0.0/8", "192.0.2.7", "192.0.2.7/32", "0.0.0.0/0", "fd00::/8", "::1", "::/0", "2001:db8::/64",
        "::ffff:0:0/96", "::ffff:10.0.0.0/104", "10.0.0.0/08",
    ])
    func networksParse(text: String) throws {
        let network = try #require(IPNetwork(text))
        #expect(IPNetwork(network.description) == network)
        #expect(network.contains(network.address))
    }

    @Test(arguments: [
        "", "/8", "10.1.2.3/8", "10.0.0.0/33", "fd00::1/8", "::/129", "10.0.0.0/", "10.0.0.0/+8",
        "10.0.0.0/-1", "10.0.0.0/0008", "10.0.0.0/99999999999999999999999", "proxy.local", "10.0.0.0/8/8",
        "1.2.3.4 ", "[::1]", "[::1]/128", "1.2.3.4\u{0}junk", "10.0.0.0/8\u{0}", "fe80::%eth0/64", "fe80::/64%eth0",
        "10.0.0.0/ 8", "10.0.0.0/８", "::/1000",
    ])
    func malformedNetworksAreRefused(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    /// Every prefix length of each family: the range's first and last
    /// addresses are in, the one past its end is not, and a host bit right
    /// after the prefix is refused.
    @Test func everyPrefixLengthOfBothFamilies() throws {
        for length in 0...32 {
            let network = try #require(IPNetwork("0.0.0.0/\(length)"), "/\(length)")
            #expect(network.prefixLength == length)
            #expect(network.contains(IPAddress(.v4(0))))
            let last = UInt32.max >> length
            #expect(network.contains(IPAddress(.v4(last))), "/\(length)")
            if length > 0 {
                #expect(!network.contains(IPAddress(.v4(last + 1))), "/\(length)")
            }
            if length < 32 {
                #expect(IPNetwork("\(IPAddress(.v4(1 << (31 - length))))/\(length)") == nil, "/\(length)")
            }
        }
        for length in 0...128 {
            let network = try #require(IPNetwork("::/\(length)"), "/\(length)")
            #expect(network.prefixLength == length)
            #expect(network.contains(IPAddress(.v6(0))))
            let last = UInt128.max >> length
            #expect(network.contains(IPAddress(.v6(last))), "/\(length)")
            if length > 0 {
                #expect(!network.contains(IPAddress(.v6(last + 1))), "/\(length)")
            }
            if length < 128 {
                #expect(IPNetwork("\(IPAddress(.v6(1 << (127 - length))))/\(length)") == nil, "/\(length)")
            }
        }
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
        #expect(!sixtyFour.contains(try #require(IPAddress("10.0.0.1"))))
        #expect(ten.description == "10.0.0.0/8")
        #expect(IPNetwork("::1")?.description == "::1")
        #expect(IPNetwork("192.0.2.7/32")?.description == "192.0.2.7")
    }

    /// An IPv4 host and its IPv4-mapped IPv6 form are one host.
    @Test func mappedAddressesAreInTheRangesOfTheirIPv4Host() throws {
        let ten = try #require(IPNetwork("10.0.0.0/8"))
        #expect(ten.contains(try #require(IPAddress("::ffff:10.1.2.3"))))
        #expect(!ten.contains(try #require(IPAddress("::ffff:11.1.2.3"))))
        let mappedTen = try #require(IPNetwork("::ffff:10.0.0.0/104"))
        #expect(mappedTen.contains(try #require(IPAddress("10.1.2.3"))))
        #expect(!mappedTen.contains(try #require(IPAddress("11.1.2.3"))))
        let everyIPv6 = try #require(IPNetwork("::/0"))
        #expect(everyIPv6.contains(try #require(IPAddress("192.0.2.1"))))
        let mappedBlock = try #require(IPNetwork("::ffff:0:0/96"))
        #expect(mappedBlock.contains(try #require(IPAddress("127.0.0.1"))))
        #expect(!(try #require(IPNetwork("::/96"))).contains(try #require(IPAddress("127.0.0.1"))))
    }
}
