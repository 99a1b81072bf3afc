import TidingsHTTPClient

/// `Location` headers from origins, resolved against the URL that answered,
/// and the origins of the results. Any text: nil, or an absolute http(s)
/// URL without a fragment whose origin parses; resolving the result again
/// (as an absolute location) gives it back. Origins compare equal exactly
/// when their scheme, host and port do.
enum RedirectLocationTarget {
    static let bases = [
        "http://a.example/dir/page?q=1", "https://A.Example.:8443/", "http://[::1]:8080/x", "http://127.0.0.1/",
    ]

    static func run(_ input: FuzzInput) {
        let text = input.string
        let base = bases[Int(input.bytes.first ?? 0) % bases.count]
        if let resolved = RedirectLocation.resolve(text, against: base) {
            check(!resolved.contains("#"), "\(resolved.debugDescription) keeps a fragment")
            guard let origin = HTTPOrigin(url: resolved) else {
                check(false, "\(resolved.debugDescription) has no origin")
                return
            }
            check(origin.scheme == "http" || origin.scheme == "https", "scheme \(origin.scheme)")
            check((1...65_535).contains(origin.port), "port \(origin.port)")
            check(!origin.host.isEmpty && origin.host == origin.host.lowercased(), "host \(origin.host.debugDescription)")
            check(RedirectLocation.resolve(resolved, against: base) == resolved, "\(resolved.debugDescription) does not resolve to itself")
        }
        if let origin = HTTPOrigin(url: text) {
            check(!origin.host.hasSuffix("."), "host \(origin.host.debugDescription) keeps a trailing dot")
            check(HTTPOrigin(url: origin.description) == origin, "\(origin) does not parse back")
        }
    }
}
