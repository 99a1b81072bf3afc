import TidingsIP

/// Address and network literals: target URLs checked by the SSRF guard,
/// trusted proxies from configuration, `X-Forwarded-For` hops (TidingsIP).
/// Any text is an address or nil; an address prints in a form that reads
/// back as itself and unmaps to its IPv4 host only when mapped. A network
/// prints back to itself and holds its own address and the same host in the
/// other family's form.
enum IPAddressTarget {
    static func run(_ input: FuzzInput) {
        let text = input.string
        if let address = IPAddress(text) {
            let printed = address.description
            check(IPAddress(printed) == address, "\(text.debugDescription) -> \(printed)")
            check(IPAddress(bytes: address.bytes) == address, "bytes of \(printed)")
            check(address.unmapped.mapped == address.mapped, "\(printed) unmaps to \(address.unmapped)")
            check(address.clientKey == address.clientKey.clientKey, "client key of \(printed)")
        }
        if let network = IPNetwork(text) {
            check(IPNetwork(network.description) == network, "\(text.debugDescription) -> \(network) does not parse back")
            check((0...128).contains(network.prefixLength), "\(network) has prefix \(network.prefixLength)")
            check(network.contains(network.address), "\(network) does not contain \(network.address)")
            check(network.contains(network.address.mapped), "\(network) does not contain \(network.address.mapped)")
        }
    }
}
