import TidingsIP

#if canImport(Glibc)
import Glibc
#endif

/// The socket address to bind, from an IP literal (`IPAddress`, the one parser of them).
struct ListenAddress {
    let isIPv6: Bool
    private var storage = sockaddr_storage()

    init(host: String, port: Int) throws(HTTPServerError) {
        guard let address = IPAddress(host == "localhost" ? "127.0.0.1" : host) else {
            throw HTTPServerError(.invalidHost, detail: "host must be an IPv4 or IPv6 address literal or localhost, got \"\(host)\"")
        }
        switch address.value {
        case .v4(let bits):
            var ipv4 = sockaddr_in()
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = in_port_t(UInt16(port).bigEndian)
            ipv4.sin_addr.s_addr = bits.bigEndian
            Self.copy(ipv4, into: &storage)
            isIPv6 = false
        case .v6:
            var ipv6 = sockaddr_in6()
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &ipv6.sin6_addr) { $0.copyBytes(from: address.bytes) }
            Self.copy(ipv6, into: &storage)
            isIPv6 = true
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
