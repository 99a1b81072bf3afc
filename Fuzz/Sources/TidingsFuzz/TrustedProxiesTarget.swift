@testable import TidingsHTTPServer
import TidingsIP

/// `X-Forwarded-For` behind trusted proxies (HTTPServer's `TrustedProxies`
/// and `IPNetwork`; the client address keys per-client limits). The input
/// is, NUL-separated: trusted networks (comma-separated, a default set when
/// none parses), the peer address (10.0.0.1 when it does not parse), then
/// the header's field values. A network prints in a form that parses back
/// to itself and contains its own address; an untrusted peer is the client
/// whatever the header says; the values read the same combined into one
/// with commas (RFC 9110 5.3); and once an untrusted client is found,
/// anything a client writes to its left changes nothing.
enum TrustedProxiesTarget {
    static let defaultNetworks = ["10.0.0.0/8", "fd00::/8", "127.0.0.1", "::1"].compactMap(IPNetwork.init)
    static let defaultPeer = IPAddress("10.0.0.1")!
    static let forged = "203.0.113.7, 10.0.0.2"

    static func run(_ input: FuzzInput) {
        let parts = input.strings()
        var networks: [IPNetwork] = []
        for element in parts[0].split(separator: ",", omittingEmptySubsequences: false) {
            guard let network = IPNetwork(String(element)) else { continue }
            check(IPNetwork(network.description) == network, "\(element.debugDescription) -> \(network) does not parse back")
            check(network.contains(network.address), "\(network) does not contain \(network.address)")
            networks.append(network)
        }
        let proxies = TrustedProxies(networks.isEmpty ? defaultNetworks : networks)
        let peer = (parts.count > 1 ? IPAddress(parts[1]) : nil) ?? defaultPeer
        let values = Array(parts.dropFirst(2))

        let client = proxies.client(peer: peer, forwardedFor: values)
        if !proxies.contains(peer) {
            check(client == peer, "untrusted peer \(peer) became \(client)")
        }
        let combined = proxies.client(peer: peer, forwardedFor: values.isEmpty ? [] : [values.joined(separator: ",")])
        check(combined == client, "\(values) gave \(client), combined \(combined)")
        if !proxies.contains(client) {
            let prefixed = proxies.client(peer: peer, forwardedFor: [forged] + values)
            check(prefixed == client, "\(values) gave \(client), with \(forged.debugDescription) before them \(prefixed)")
        }
    }
}
