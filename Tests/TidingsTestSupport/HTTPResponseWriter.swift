#if canImport(Glibc)
import Glibc
#endif

/// Serialises a `TestResponse` onto a connection.
package enum HTTPResponseWriter {
    /// False when the peer went away mid-write.
    package static func write(_ response: TestResponse, to descriptor: Int32) -> Bool {
        var head = "HTTP/1.1 \(response.status) Status\r\n"
        for header in response.headers {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += response.chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: \(response.body.count)\r\n"
        head += "\r\n"
        guard send(Array(head.utf8), to: descriptor) else { return false }
        guard response.chunked else { return send(response.body, to: descriptor) }
        var offset = 0
        while offset < response.body.count {
            let end = min(offset + 65536, response.body.count)
            let size = Array(String(end - offset, radix: 16).utf8) + Array("\r\n".utf8)
            guard send(size + response.body[offset..<end] + Array("\r\n".utf8), to: descriptor) else { return false }
            offset = end
        }
        return send(Array("0\r\n\r\n".utf8), to: descriptor)
    }

    private static func send(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a client that aborted must not kill the test process.
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
