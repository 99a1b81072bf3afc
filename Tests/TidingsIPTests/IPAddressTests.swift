import Testing
import TidingsIP

#if canImport(Glibc)
import Glibc
#endif

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("0.0.0.0", "0.0.0.0"), ("10.0.0.1", "10.0.0.1"), ("255.255.255.255", "255.255.255.255"),
        ("::", "::"), ("::1", "::1"), ("2606:4700:4700:0:0:0:0:1111", "2606:4700:4700::1111"),
        ("2001:DB8::A", "2001:db8::a"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("fe80::1", "fe80::1"), ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1"), ("::ffff:7f00:1", "::ffff:127.0.0.1"), ("64:ff9b::1.2.3.4", "64:ff9b::102:304"),
    ])
    func literalsParseAndPrintCanonically(text: String, printed: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == printed)
        #expect(IPAddress(printed) == address)
        #expect(IPAddress(bytes: address.bytes) == address)
    }

    @Test(arguments: [
        "", " ", "localhost", "256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "0x7f.0.0.1", "127.1", "1.2.3.4 ", " 1.2.3.4",
        "1.2.3.4\u{0}junk", "::1\u{0}", "[::1]", "1.2.3.4:80", "[::1]:80", "fe80::1%eth0", "fe80::1%1", "::1%",
        "1::2::3", ":::", "1:2:3:4:5:6:7:8:9", "12345::", "g::1", "::ffff:1.2.3.256", "1.2.3.4/32", "::1/128",
        "１.２.３.４", String(repeating: "1", count: 100_000), String(repeating: ":", count: 46),
    ])
    func malformedLiteralsAreRefused(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func familiesStayApartUntilUnmapped() throws {
        let v4 = try #require(IPAddress("10.1.2.3"))
        let mapped = try #require(IPAddress("::ffff:10.1.2.3"))
        #expect(v4 == .v4(10, 1, 2, 3))
        #expect(v4.isIPv4 && !mapped.isIPv4)
        #expect(v4 != mapped)
        #expect(mapped.unmapped == v4)
        #expect(v4.mapped == mapped)
        #expect(v4.unmapped == v4)
        // IPv4-compatible (deprecated) and NAT64 addresses are not mapped.
        let compatible = try #require(IPAddress("::a01:203"))
        #expect(compatible.unmapped == compatible)
        let nat64 = try #require(IPAddress("64:ff9b::a01:203"))
        #expect(nat64.unmapped == nat64)
    }

    @Test func bytesAreInNetworkOrder() throws {
        #expect(IPAddress("fe80::1")?.bytes == [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1])
        #expect(IPAddress("192.0.2.7")?.bytes == [192, 0, 2, 7])
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 17)) == nil)
    }

    @Test func loopbackIsThisMachineOnly() throws {
        for text in ["127.0.0.1", "127.255.255.254", "::1", "::ffff:127.0.0.1"] {
            #expect(try #require(IPAddress(text)).isLoopback, "\(text)")
        }
        for text in ["128.0.0.1", "126.255.255.255", "::", "::2", "::127.0.0.1", "0.0.0.0", "fe80::1"] {
            #expect(try !#require(IPAddress(text)).isLoopback, "\(text)")
        }
    }

    @Test func theClientKeyIsTheIPv4AddressOrTheIPv6Slash64() throws {
        let one = try #require(IPAddress("2001:db8:0:1::1"))
        let sameSlash64 = try #require(IPAddress("2001:db8:0:1:abcd::2"))
        #expect(one.clientKey == sameSlash64.clientKey)
        #expect(one.clientKey.description == "2001:db8:0:1::")
        #expect(one.clientKey != IPAddress("2001:db8:0:2::1")?.clientKey)
        #expect(IPAddress("192.0.2.1")?.clientKey != IPAddress("192.0.2.2")?.clientKey)
        #expect(IPAddress("::ffff:192.0.2.1")?.clientKey == IPAddress("192.0.2.1"))
    }

    @Test func socketAddressesOfBothFamiliesAndNoOther() throws {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_addr.s_addr = UInt32(0xC000_0207).bigEndian
        let fromV4 = withUnsafeBytes(of: v4) { IPAddress(socketAddress: $0.baseAddress!, length: $0.count) }
        #expect(fromV4 == IPAddress("192.0.2.7"))
        let short = withUnsafeBytes(of: v4) { IPAddress(socketAddress: $0.baseAddress!, length: 4) }
        #expect(short == nil)

        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        withUnsafeMutableBytes(of: &v6.sin6_addr) { bytes in
            for (index, byte) in try! #require(IPAddress("::ffff:10.0.0.1")).bytes.enumerated() { bytes[index] = byte }
        }
        let fromV6 = withUnsafePointer(to: &v6) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddressOfItsFamily: $0) }
        }
        #expect(fromV6 == IPAddress("::ffff:10.0.0.1"))
        #expect(fromV6?.unmapped == IPAddress("10.0.0.1"))
        let truncated = withUnsafeBytes(of: v6) { IPAddress(socketAddress: $0.baseAddress!, length: MemoryLayout<sockaddr_in>.size) }
        #expect(truncated == nil)

        var unix = sockaddr()
        unix.sa_family = sa_family_t(AF_UNIX)
        #expect(withUnsafePointer(to: &unix) { IPAddress(socketAddressOfItsFamily: $0) } == nil)
    }
}
