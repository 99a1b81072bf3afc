package import TidingsIP

/// Decides whether the client may connect to an address. It runs on the
/// address a connection is actually about to use (after DNS, on every
/// redirect hop), so a name that re-resolves to a private address between a
/// check and the connect cannot slip through.
package struct SSRFGuard: Sendable {
    /// Why an address was refused: the CIDR block it falls in and what that block is.
    package struct Refusal: Hashable, Sendable {
        /// The block, e.g. "169.254.0.0/16" or "127.0.0.0/8 via ::ffff:0:0/96".
        package var range: String
        /// What the block is, e.g. "link-local".
        package var reason: String
    }

    /// When true every address is allowed (local development and tests).
    package var allowPrivateTargets: Bool
    /// Single addresses allowed although their range is blocked (a known
    /// internal origin; tests that need one reachable loopback address next
    /// to blocked ones).
    package var allowedAddresses: Set<IPAddress>

    package init(allowPrivateTargets: Bool, allowedAddresses: Set<IPAddress> = []) {
        self.allowPrivateTargets = allowPrivateTargets
        self.allowedAddresses = allowedAddresses
    }

    /// nil when the address may be used, otherwise the reason it may not.
    package func check(_ address: IPAddress) -> Refusal? {
        guard !allowPrivateTargets, !allowedAddresses.contains(address) else { return nil }
        switch address.value {
        case .v4:
            return Self.refusal(forIPv4: address)
        case .v6(let bits):
            for (embedding, offset) in BlockedRanges.ipv4Embedding where embedding.contains(address) {
                let embedded = IPAddress(.v4(UInt32(truncatingIfNeeded: bits >> offset)))
                guard let refusal = Self.refusal(forIPv4: embedded) else { return nil }
                return Refusal(range: "\(refusal.range) via \(embedding.text)", reason: refusal.reason)
            }
            return BlockedRanges.ipv6.first { $0.contains(address) }
                .map { Refusal(range: $0.text, reason: $0.reason) }
        }
    }

    private static func refusal(forIPv4 address: IPAddress) -> Refusal? {
        BlockedRanges.ipv4.first { $0.contains(address) }
            .map { Refusal(range: $0.text, reason: $0.reason) }
    }
}
