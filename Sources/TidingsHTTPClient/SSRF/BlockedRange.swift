/// One CIDR block the SSRF guard refuses, with the reason shown to users.
struct BlockedRange: Sendable {
    let network: IPAddress
    let prefixLength: Int
    let reason: String
    /// The block as written in the table, e.g. "::ffff:0:0/96".
    let text: String

    /// `cidr` must be a valid literal such as "10.0.0.0/8"; the table of
    /// ranges is fixed source text, so a typo is a programming error.
    init(_ cidr: String, _ reason: String) {
        let parts = cidr.split(separator: "/")
        guard parts.count == 2,
              let network = IPAddress(String(parts[0])),
              let prefixLength = Int(parts[1])
        else { preconditionFailure("invalid CIDR literal \(cidr)") }
        self.network = network
        self.prefixLength = prefixLength
        self.reason = reason
        self.text = cidr
    }

    func contains(_ address: IPAddress) -> Bool {
        switch (network.value, address.value) {
        case (.v4(let base), .v4(let candidate)):
            let mask: UInt32 = prefixLength == 0 ? 0 : ~0 << (32 - prefixLength)
            return base & mask == candidate & mask
        case (.v6(let base), .v6(let candidate)):
            let mask: UInt128 = prefixLength == 0 ? 0 : ~0 << (128 - prefixLength)
            return base & mask == candidate & mask
        default:
            return false
        }
    }
}
