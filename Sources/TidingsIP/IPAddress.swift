/// An IPv4 or IPv6 address as plain numbers, so range checks are integer
/// masks and comparisons. The families stay apart: `::ffff:10.0.0.1` is an
/// IPv6 value, and `unmapped` names the IPv4 host it stands for when a
/// caller (the server's client addresses) wants the two as one.
package struct IPAddress: Hashable, Sendable {
    package enum Value: Hashable, Sendable {
        /// The 32 address bits, most significant byte first (network order as a number).
        case v4(UInt32)
        /// The 128 address bits, most significant byte first.
        case v6(UInt128)
    }

    package var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> IPAddress {
        IPAddress(.v4(UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)))
    }

    /// The bits of the `::ffff:0:0/96` prefix that marks an IPv4-mapped address (RFC 4291 2.5.5.2).
    static let ipv4MappedPrefix: UInt128 = 0xFFFF << 32

    package var isIPv4: Bool {
        if case .v4 = value { true } else { false }
    }

    /// The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what
    /// a dual-stack socket reports for an IPv4 peer) stands for; any other
    /// address unchanged.
    package var unmapped: IPAddress {
        guard case .v6(let bits) = value, bits >> 32 == Self.ipv4MappedPrefix >> 32 else { return self }
        return IPAddress(.v4(UInt32(truncatingIfNeeded: bits)))
    }

    /// The IPv6 form of an IPv4 address (`::ffff:a.b.c.d`); IPv6 ones unchanged.
    package var mapped: IPAddress {
        guard case .v4(let bits) = value else { return self }
        return IPAddress(.v6(Self.ipv4MappedPrefix | UInt128(bits)))
    }

    /// 127.0.0.0/8 or ::1 (also as `::ffff:127.x.y.z`): only this machine reaches it.
    package var isLoopback: Bool {
        switch unmapped.value {
        case .v4(let bits): bits >> 24 == 127
        case .v6(let bits): bits == 1
        }
    }

    /// What a per-client count keys by: the whole address for IPv4, the /64
    /// for IPv6, since one IPv6 host commonly holds a whole /64.
    package var clientKey: IPAddress {
        switch unmapped.value {
        case .v4: unmapped
        case .v6(let bits): IPAddress(.v6(bits & ~UInt128(UInt64.max)))
        }
    }

    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    package var bytes: [UInt8] {
        switch value {
        case .v4(let bits):
            return (0..<4).map { UInt8(truncatingIfNeeded: bits >> (24 - 8 * $0)) }
        case .v6(let bits):
            return (0..<16).map { UInt8(truncatingIfNeeded: bits >> (120 - 8 * $0)) }
        }
    }

    /// Builds an address from 4 or 16 network-order bytes.
    package init?(bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 4:
            self.init(.v4(bytes.reduce(0) { $0 << 8 | UInt32($1) }))
        case 16:
            self.init(.v6(bytes.reduce(0) { $0 << 8 | UInt128($1) }))
        default:
            return nil
        }
    }
}
