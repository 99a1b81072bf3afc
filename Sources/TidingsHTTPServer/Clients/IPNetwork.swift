/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`) or a single
/// address. Parsing refuses host bits below the prefix (`10.1.2.3/8`), which
/// is more often a typo than a wish to trust the whole range.
package struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    package let address: IPAddress
    /// Leading bits that must match, counted on the 128-bit form (an IPv4 /n is /96+n).
    let prefixLength: Int

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
        self.prefixLength = prefixLength + (128 - familyBits)
        guard self.address == masked(address) else { return nil }
    }

    package func contains(_ candidate: IPAddress) -> Bool {
        masked(candidate) == address
    }

    package var description: String {
        let familyBits = address.isIPv4 ? 32 : 128
        let shownPrefix = prefixLength - (128 - familyBits)
        return shownPrefix == familyBits ? address.description : "\(address)/\(shownPrefix)"
    }

    private func masked(_ candidate: IPAddress) -> IPAddress {
        IPAddress(
            high: candidate.high & Self.mask(bits: min(prefixLength, 64)),
            low: candidate.low & Self.mask(bits: max(prefixLength - 64, 0))
        )
    }

    /// A 64-bit word whose first `bits` (0...64) bits are set.
    private static func mask(bits: Int) -> UInt64 {
        bits == 0 ? 0 : ~UInt64(0) << UInt64(64 - bits)
    }
}
