/// The Server-Sent Events wire format (WHATWG HTML, "Server-sent events"):
/// pure functions from what to say to the bytes of one message.
import TidingsSynchronization

enum ServerSentEvents {
    /// `id:`, `event:` and one `data:` line per line of `data` (a line
    /// break inside the data would otherwise end the field early).
    static func event(id: String?, type: String, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + type.utf8.count + 40)
        if let id {
            bytes += Array("id: \(id)\n".utf8)
        }
        bytes += Array("event: \(type)\n".utf8)
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            bytes += Array("data: ".utf8)
            bytes += line.filter { $0 != UInt8(ascii: "\r") }
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// A comment line: ignored by clients, it keeps proxies and the
    /// connection's idle timeout from cutting a quiet stream.
    static let heartbeat: [UInt8] = Array(":\n\n".utf8)

    /// How long a client waits before reconnecting after the stream ends.
    static func retry(_ delay: Duration) -> [UInt8] {
        Array("retry: \(delay.inMilliseconds)\n\n".utf8)
    }
}
