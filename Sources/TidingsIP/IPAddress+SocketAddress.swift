#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif

extension IPAddress {
    /// Reads an AF_INET or AF_INET6 socket address; nil for any other family
    /// or a length too short for the family it claims.
    package init?(socketAddress: UnsafeRawPointer, length: Int) {
        guard length >= MemoryLayout<sa_family_t>.size else { return nil }
        let family = socketAddress.loadUnaligned(
            fromByteOffset: MemoryLayout<sockaddr>.offset(of: \.sa_family)!,
            as: sa_family_t.self
        )
        switch Int32(family) {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            let address = socketAddress.loadUnaligned(as: sockaddr_in.self)
            self.init(.v4(UInt32(bigEndian: address.sin_addr.s_addr)))
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            let address = socketAddress.loadUnaligned(as: sockaddr_in6.self)
            self.init(bytes: withUnsafeBytes(of: address.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    /// Reads a socket address whose length nobody passed along (libmicrohttpd
    /// keeps the one accept() filled): the family's own size is trusted.
    package init?(socketAddressOfItsFamily socketAddress: UnsafePointer<sockaddr>) {
        let length =
            switch Int32(socketAddress.pointee.sa_family) {
            case AF_INET: MemoryLayout<sockaddr_in>.size
            case AF_INET6: MemoryLayout<sockaddr_in6>.size
            default: 0
            }
        self.init(socketAddress: UnsafeRawPointer(socketAddress), length: length)
    }
}
