#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address. IPv4 addresses are kept in their IPv4-mapped
/// IPv6 form (`::ffff:a.b.c.d`), so one comparison serves both families.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The 128 bits, most significant first.
    let high: UInt64
    let low: UInt64

    private static let ipv4MappedMarker: UInt64 = 0xFFFF << 32

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    init(ipv4: in_addr) {
        self.init(high: 0, low: Self.ipv4MappedMarker | UInt64(UInt32(bigEndian: ipv4.s_addr)))
    }

    init(ipv6: in6_addr) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        withUnsafeBytes(of: ipv6) { bytes in
            for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        }
        self.init(high: high, low: low)
    }

    /// Parses an IPv4 (`192.0.2.7`) or IPv6 (`2001:db8::7`) literal; nothing
    /// else (no host names, ports or brackets).
    package init?(_ text: String) {
        // inet_pton stops at a NUL byte, which would let "1.2.3.4\0junk" pass.
        guard !text.isEmpty, text.utf8.count < INET6_ADDRSTRLEN, !text.utf8.contains(0) else { return nil }
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            self.init(ipv4: ipv4)
        } else if inet_pton(AF_INET6, text, &ipv6) == 1 {
            self.init(ipv6: ipv6)
        } else {
            return nil
        }
    }

    /// The address of an `AF_INET` or `AF_INET6` socket address; nil for other families.
    init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            self.init(ipv4: socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr })
        case AF_INET6:
            self.init(ipv6: socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr })
        default:
            return nil
        }
    }

    var isIPv4: Bool {
        high == 0 && low >> 32 == Self.ipv4MappedMarker >> 32
    }

    /// 127.0.0.0/8 or ::1: only this machine reaches it.
    package var isLoopback: Bool {
        isIPv4 ? low >> 24 & 0xFF == 127 : high == 0 && low == 1
    }

    /// What the per-client connection cap counts by: the whole address for
    /// IPv4, the /64 for IPv6, since one IPv6 host commonly holds a whole /64.
    package var clientKey: IPAddress {
        isIPv4 ? self : IPAddress(high: high, low: 0)
    }

    /// Dotted IPv4 for IPv4 addresses, RFC 5952 text for IPv6.
    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted: UnsafePointer<CChar>?
        if isIPv4 {
            var ipv4 = in_addr(s_addr: UInt32(truncatingIfNeeded: low).bigEndian)
            converted = inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count))
        } else {
            var ipv6 = in6_addr()
            withUnsafeMutableBytes(of: &ipv6) { bytes in
                for index in 0..<8 {
                    bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
                    bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
                }
            }
            converted = inet_ntop(AF_INET6, &ipv6, &text, socklen_t(text.count))
        }
        // inet_ntop fails only for a buffer too small, which INET6_ADDRSTRLEN rules out.
        guard converted != nil else { return "invalid" }
        let length = text.firstIndex(of: 0) ?? text.count
        return String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
