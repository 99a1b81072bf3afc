#if canImport(Glibc)
import Glibc
#endif

/// Checks, without blocking, whether an idle connection's socket is still
/// usable before it is handed out again.
enum SocketProbe {
    /// True when nothing is waiting on the socket and the peer has not
    /// closed it. On an idle connection any byte at all is a bad sign: after
    /// a server restart it is the FATAL "terminating connection" message
    /// followed by end of file, which libpq alone would only notice when the
    /// next query fails.
    static func isQuietAndOpen(_ socket: Int32) -> Bool {
        guard socket >= 0 else { return false }
        var byte: UInt8 = 0
        let received = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if received < 0 {
            return errno == EAGAIN || errno == EWOULDBLOCK
        }
        return false
    }
}
