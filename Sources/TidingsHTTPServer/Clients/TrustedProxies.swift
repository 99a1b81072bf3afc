package import TidingsIP

/// The proxies whose `X-Forwarded-For` the server believes. Behind a proxy
/// every connection comes from the proxy's address; the header says who
/// the proxy was talking to, but anyone can send it, so it counts only on
/// connections from these networks.
package struct TrustedProxies: Sendable, CustomStringConvertible {
    package var networks: [IPNetwork]

    package init(_ networks: [IPNetwork] = []) {
        self.networks = networks
    }

    package var isEmpty: Bool { networks.isEmpty }

    package func contains(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    package var description: String {
        networks.isEmpty ? "none" : networks.map(\.description).joined(separator: ",")
    }

    /// The client behind a connection from `peer`. `forwardedFor` holds the
    /// `X-Forwarded-For` field values in the order received. Each proxy
    /// appends the address it was talking to, so hops are read from the
    /// right: the first one that is not a trusted proxy is the client.
    /// Anything left of it was written by the client and is ignored. A hop
    /// that is not an address (`unknown`, garbage) ends the walk at the
    /// trusted proxy that wrote it, since who stands behind it is unknown.
    func client(peer: IPAddress, forwardedFor: [String]) -> IPAddress {
        guard contains(peer) else { return peer }
        var client = peer
        for value in forwardedFor.reversed() {
            // By scalar: a combining mark after a comma, or a prepended
            // concatenation mark before one, would make one `Character` of
            // both and hide the comma, so a client's `1.2.3.4\u{600}` made
            // the proxy's appended `, <client>` unreadable.
            for element in Substring(value).unicodeScalars.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                guard let hop = Self.hopAddress(element) else { return client }
                client = hop
                if !contains(hop) { return hop }
            }
        }
        return client
    }

    /// One hop: an address, optionally as `[v6]:port` or `v4:port`, which
    /// some proxies write; an IPv4-mapped one as its IPv4 address, as peers are.
    private static func hopAddress(_ element: Substring.UnicodeScalarView) -> IPAddress? {
        var text = element.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        if text.first == "[", let close = text.firstIndex(of: "]") {
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.contains("."), let colon = text.firstIndex(of: ":"), text.lastIndex(of: ":") == colon {
            text = text[..<colon]
        }
        return IPAddress(String(Substring(text)))?.unmapped
    }
}
