import TidingsIP
import TidingsSynchronization

/// One open TCP connection as the server tracks it: who is at the other end
/// and by when what it is doing must be done. Registered when
/// libmicrohttpd reports the connection started and dropped when it reports
/// it closed, which it does before closing the socket, so `socket` is valid
/// for as long as the connection is registered. A connection shed at the
/// limit is dropped at once, and its socket not touched again.
final class ClientConnection: Sendable {
    let socket: Int32
    /// The address the TCP connection comes from; nil for a non-IP peer.
    let peer: IPAddress?
    /// `peer` as text, made once rather than for every request.
    let peerDescription: String?
    /// True when `peer` is a trusted proxy: its `X-Forwarded-For` is
    /// believed and it is exempt from the per-client cap.
    let isTrustedProxy: Bool
    let deadline: AdaptiveMutex<ConnectionDeadline>

    init(socket: Int32, peer: IPAddress?, isTrustedProxy: Bool, deadline: ConnectionDeadline) {
        self.socket = socket
        self.peer = peer
        peerDescription = peer?.description
        self.isTrustedProxy = isTrustedProxy
        self.deadline = AdaptiveMutex(deadline)
    }

    /// The key this connection counts under for the per-client cap; nil
    /// when it does not count (a trusted proxy speaks for many clients).
    var capKey: IPAddress? {
        isTrustedProxy ? nil : peer?.clientKey
    }

    /// The key its share of the connection limit is counted under: the
    /// peer's address (IPv6 /64), a trusted proxy's too, whose idle
    /// connections are shed like anyone's.
    var shareKey: IPAddress? {
        peer?.clientKey
    }
}
