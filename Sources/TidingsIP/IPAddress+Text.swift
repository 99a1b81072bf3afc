#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Text conversion goes through inet_pton/inet_ntop: they are strict about
// the accepted forms (no octal or short IPv4, no zone identifiers) and print
// IPv6 in the canonical RFC 5952 shape.
extension IPAddress: CustomStringConvertible {
    /// Parses a literal such as "10.0.0.1", "::1" or "::ffff:127.0.0.1".
    /// Host names, brackets, ports and zone identifiers (`fe80::1%eth0`) are
    /// not accepted.
    package init?(_ text: String) {
        // inet_pton stops at a NUL byte, which would let "1.2.3.4\0junk" pass;
        // no literal is as long as INET6_ADDRSTRLEN.
        guard !text.isEmpty, text.utf8.count < INET6_ADDRSTRLEN, !text.utf8.contains(0) else { return nil }
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(bytes: v4)
            return
        }
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(bytes: v6)
            return
        }
        return nil
    }

    /// Dotted IPv4, RFC 5952 text for IPv6 (`::ffff:a.b.c.d` for a mapped one).
    package var description: String {
        let family: Int32
        switch value {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        }
        let binary = bytes
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        // inet_ntop fails only for a buffer too small, which INET6_ADDRSTRLEN rules out.
        let formatted = binary.withUnsafeBytes { source in
            inet_ntop(family, source.baseAddress, &text, socklen_t(text.count)) != nil
        }
        guard formatted else { return binary.map(String.init).joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
