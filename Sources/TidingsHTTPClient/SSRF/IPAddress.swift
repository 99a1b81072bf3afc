/// An IPv4 or IPv6 address as plain numbers, so range checks are integer
/// masks and comparisons (see `SSRFGuard`).
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
