import TidingsIP

/// One CIDR block the SSRF guard refuses, with the reason shown to users.
struct BlockedRange: Sendable {
    let network: IPNetwork
    let reason: String
    /// The block as written in the table, e.g. "::ffff:0:0/96".
    let text: String

    /// `cidr` must be a valid literal such as "10.0.0.0/8"; the table of
    /// ranges is fixed source text, so a typo is a programming error.
    init(_ cidr: String, _ reason: String) {
        guard cidr.contains("/"), let network = IPNetwork(cidr) else { preconditionFailure("invalid CIDR literal \(cidr)") }
        self.network = network
        self.reason = reason
        self.text = cidr
    }

    func contains(_ address: IPAddress) -> Bool {
        network.contains(address)
    }
}
