internal import CPSL

/// The Public Suffix List, through libpsl: which part of a host name is
/// its registrable domain (`example.co.uk` of `a.b.example.co.uk`), so
/// that every name under one domain counts as one site.
enum PublicSuffixList {
    /// The newer of libpsl's built-in list and the system's
    /// (`publicsuffix` package), loaded once and kept for the process.
    /// Nil when libpsl has neither: then no name is grouped.
    private nonisolated(unsafe) static let context: OpaquePointer? = psl_latest(nil) ?? psl_builtin()

    /// The registrable domain of a lower-case host name; nil for a name
    /// that is a public suffix itself or has no registrable part
    /// (`co.uk`, `localhost`). Not for IP literals: libpsl reads
    /// `127.0.0.1` as a name (`0.1`), so callers leave those out.
    /// A name with a NUL byte has none: as a C string it would be cut
    /// short and name another site.
    static func registrableDomain(of host: String) -> String? {
        guard let context, !host.utf8.contains(0) else { return nil }
        return host.withCString { name in
            // Points into `name`, or is nil.
            psl_registrable_domain(context, name).map { String(cString: $0) }
        }
    }
}
