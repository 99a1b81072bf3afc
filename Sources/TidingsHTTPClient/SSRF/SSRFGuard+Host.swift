import TidingsIP
import TidingsSynchronization

extension SSRFGuard {
    /// How long `checkHost` waits for a name to resolve.
    package static let hostCheckTimeout: Duration = .seconds(2)

    /// Refuses a host when an address it resolves to now is blocked. Meant
    /// for early feedback (e.g. when a watch is created); the connect-time
    /// check stays the real protection because DNS answers change. A name
    /// that does not resolve within `hostCheckTimeout` (offline, a DNS
    /// hiccup, a site not yet live) passes: its requests fail, or are
    /// refused at connect time, later. Literal addresses (brackets allowed
    /// for IPv6) need no lookup. Blocks the calling thread for the lookup.
    package func checkHost(_ host: String) throws(HTTPClientError) {
        var name = Substring(host)
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = name.dropFirst().dropLast()
        }
        guard !name.isEmpty else {
            throw HTTPClientError(code: .invalidURL, message: "the host name is empty")
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(String(name)) {
            addresses = [literal]
        } else if !allowPrivateTargets, case .addresses(let resolved) = HostResolver.resolve(String(name), within: Self.hostCheckTimeout) {
            addresses = resolved
        } else {
            return
        }
        for address in addresses {
            if let refusal = check(address) {
                throw HTTPClientError.blockedAddress(address, refusal)
            }
        }
    }
}
