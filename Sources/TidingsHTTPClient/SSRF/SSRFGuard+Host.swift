extension SSRFGuard {
    /// Refuses a host if any address it resolves to is blocked. Meant for
    /// early feedback (e.g. when a watch is created); the connect-time check
    /// stays the real protection because DNS answers can change later.
    /// Literal addresses (brackets allowed for IPv6) need no lookup.
    /// This blocks the calling thread for the duration of the DNS lookup.
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
        } else {
            addresses = try HostResolver.resolve(String(name))
        }
        for address in addresses {
            if let refusal = check(address) {
                throw HTTPClientError.blockedAddress(address, refusal)
            }
        }
    }
}
