/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`) or a single
/// address. Parsing refuses host bits below the prefix (`10.1.2.3/8`), which
/// is more often a typo than a wish to name the whole range.
package struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    package let address: IPAddress
    /// Leading bits that must match: 0...32 for IPv4, 0...128 for IPv6.
    package let prefixLength: Int

    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        let familyBits = address.isIPv4 ? 32 : 128
        var prefixLength = familyBits
        if parts.count == 2 {
            let digits = parts[1]
            // At most three ASCII digits: no sign, no overflow, nothing beyond /128.
            guard (1...3).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let bits = Int(digits), bits <= familyBits
            else { return nil }
            prefixLength = bits
        }
        self.address = address
        self.prefixLength = prefixLength
        guard Self.masked(address, prefixLength) == address else { return nil }
    }

    /// Whether `candidate` is in the range. An IPv4 address and its
    /// IPv4-mapped IPv6 form (`::ffff:a.b.c.d`) are one host (RFC 4291
    /// 2.5.5.2), so each is in the ranges that hold the other: `10.0.0.0/8`
    /// holds `::ffff:10.1.2.3`, `::/0` holds every IPv4 address. An
    /// IPv4-compatible address (`::a00:1`) is not mapped and is in no IPv4 range.
    package func contains(_ candidate: IPAddress) -> Bool {
        let sameFamily = address.isIPv4 ? candidate.unmapped : candidate.mapped
        guard sameFamily.isIPv4 == address.isIPv4 else { return false }
        return Self.masked(sameFamily, prefixLength) == address
    }

    /// The literal, with `/prefix` unless the network is a single address.
    package var description: String {
        prefixLength == (address.isIPv4 ? 32 : 128) ? address.description : "\(address)/\(prefixLength)"
    }

    private static func masked(_ address: IPAddress, _ prefixLength: Int) -> IPAddress {
        switch address.value {
        case .v4(let bits):
            IPAddress(.v4(prefixLength == 0 ? 0 : bits & ~0 << (32 - prefixLength)))
        case .v6(let bits):
            IPAddress(.v6(prefixLength == 0 ? 0 : bits & ~0 << (128 - prefixLength)))
        }
    }
}
