#if canImport(Glibc)
import Glibc
#endif

/// The socket address to bind, parsed from an IP literal.
struct ListenAddress {
    let isIPv6: Bool
    private var storage = sockaddr_storage()

    init(host: String, port: Int) throws(HTTPServerError) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET, literal, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = in_port_t(UInt16(port).bigEndian)
            Self.copy(ipv4, into: &storage)
            isIPv6 = false
        } else if inet_pton(AF_INET6, literal, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = in_port_t(UInt16(port).bigEndian)
            Self.copy(ipv6, into: &storage)
            isIPv6 = true
        } else {
            throw HTTPServerError(.invalidHost, detail: "host must be an IPv4 or IPv6 address literal or localhost, got \"\(host)\"")
        }
    }

    private static func copy<Address>(_ address: Address, into storage: inout sockaddr_storage) {
        withUnsafeBytes(of: address) { source in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
        }
    }

    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>) throws(HTTPServerError) -> Result) throws(HTTPServerError) -> Result {
        var copy = storage
        return try withUnsafePointer(to: &copy) { pointer throws(HTTPServerError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(HTTPServerError) in
                try body(address)
            }
        }
    }
}
