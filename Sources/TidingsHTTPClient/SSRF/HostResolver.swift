#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking getaddrinfo lookup, used only by `SSRFGuard.checkHost`; transfers
/// resolve inside libcurl.
enum HostResolver {
    static func resolve(_ host: String) throws(HTTPClientError) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        // Socket type 0 lists each address once per type; the caller only
        // checks addresses, so duplicates are harmless.
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            let reason = String(cString: gai_strerror(status))
            throw HTTPClientError(code: .dnsFailure, message: "could not resolve host \(host): \(reason)")
        }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr,
               let address = IPAddress(socketAddress: socketAddress, length: Int(current.pointee.ai_addrlen)) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw HTTPClientError(code: .dnsFailure, message: "host \(host) has no IPv4 or IPv6 address")
        }
        return addresses
    }
}
