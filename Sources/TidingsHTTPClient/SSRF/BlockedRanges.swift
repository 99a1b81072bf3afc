/// The address space a server-side fetcher must never reach unless private
/// targets are allowed: loopback, private networks, link-local (cloud
/// metadata at 169.254.169.254), CGNAT, multicast, documentation and reserved
/// blocks. Every block of IANA's IPv4 and IPv6 special-purpose address
/// registries whose "globally reachable" is false is covered (checked
/// against the registries of 2025); a few globally reachable anycast
/// addresses inside 192.0.0.0/24 and 2001::/23 are blocked with their
/// block, which no watched page or receiver needs.
enum BlockedRanges {
    static let ipv4: [BlockedRange] = [
        BlockedRange("0.0.0.0/8", "this-network"),
        BlockedRange("10.0.0.0/8", "private"),
        BlockedRange("100.64.0.0/10", "carrier-grade NAT"),
        BlockedRange("127.0.0.0/8", "loopback"),
        BlockedRange("169.254.0.0/16", "link-local"),
        BlockedRange("172.16.0.0/12", "private"),
        BlockedRange("192.0.0.0/24", "IETF protocol assignment"),
        BlockedRange("192.0.2.0/24", "documentation"),
        BlockedRange("192.88.99.0/24", "6to4 relay anycast"),
        BlockedRange("192.168.0.0/16", "private"),
        BlockedRange("198.18.0.0/15", "benchmarking"),
        BlockedRange("198.51.100.0/24", "documentation"),
        BlockedRange("203.0.113.0/24", "documentation"),
        BlockedRange("224.0.0.0/4", "multicast"),
        // 240.0.0.0/4 contains the limited broadcast address 255.255.255.255.
        BlockedRange("240.0.0.0/4", "reserved"),
    ]

    /// IPv6 prefixes whose low bits carry an IPv4 address that the packet
    /// really reaches; the embedded address is checked against `ipv4`.
    static let ipv4Embedding: [(range: BlockedRange, embeddedBitOffset: Int)] = [
        (BlockedRange("::ffff:0:0/96", "IPv4-mapped"), 0),
        (BlockedRange("64:ff9b::/96", "NAT64"), 0),
        (BlockedRange("2002::/16", "6to4"), 80),
    ]

    /// Checked after `ipv4Embedding`; the first match wins, so the specific
    /// ::/128 and ::1/128 come before the wider ::/96.
    static let ipv6: [BlockedRange] = [
        BlockedRange("::/128", "unspecified"),
        BlockedRange("::1/128", "loopback"),
        BlockedRange("::/96", "IPv4-compatible (deprecated)"),
        BlockedRange("64:ff9b:1::/48", "local-use NAT64"),
        BlockedRange("100::/64", "discard-only"),
        BlockedRange("100:0:0:1::/64", "dummy prefix"),
        BlockedRange("2001:db8::/32", "documentation"),
        BlockedRange("2001::/23", "IETF special-purpose"),
        BlockedRange("3fff::/20", "documentation"),
        BlockedRange("5f00::/16", "segment routing SIDs"),
        BlockedRange("fc00::/7", "unique-local"),
        BlockedRange("fe80::/10", "link-local"),
        BlockedRange("fec0::/10", "site-local (deprecated)"),
        BlockedRange("ff00::/8", "multicast"),
    ]
}
