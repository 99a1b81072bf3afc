#if canImport(Glibc)
import Glibc
#endif

/// The socket of a connection libmicrohttpd owns, for ending it from
/// outside libmicrohttpd's threads. The caller guarantees the descriptor is
/// still open (see `ClientConnection`).
struct ConnectionSocket {
    let descriptor: Int32

    /// Writes what fits into the socket buffer now. A client past its
    /// deadline is not waited for, so a short write is accepted; the errno
    /// of a failed write is returned for the log.
    func sendWithoutWaiting(_ bytes: [UInt8]) -> Int32? {
        let written = bytes.withUnsafeBytes { buffer in
            send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        return written < 0 ? errno : nil
    }

    /// Shuts both directions: the client gets a FIN after what was already
    /// written, and libmicrohttpd's next read on its own thread sees the end
    /// of the stream, so it closes the connection and frees its slot. Returns
    /// the errno of a failure; ENOTCONN only means the client went first.
    func shutDown() -> Int32? {
        guard shutdown(descriptor, Int32(SHUT_RDWR)) != 0 else { return nil }
        let code = errno
        return code == ENOTCONN ? nil : code
    }

    /// Whether the client has closed its side (or reset the connection),
    /// by peeking without waiting: a waiting stream's connection is not
    /// polled, so libmicrohttpd would not notice until it next writes.
    var peerHasLeft: Bool {
        var byte: UInt8 = 0
        let received = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if received == 0 { return true }
        return received < 0 && (errno == ECONNRESET || errno == ENOTCONN || errno == EPIPE)
    }
}
