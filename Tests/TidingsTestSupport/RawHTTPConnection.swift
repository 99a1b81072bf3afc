import TidingsHTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client over a plain POSIX socket, so tests control
/// exactly which bytes go out and can observe what the server does with a
/// connection (answers, keeps it open, closes it).
package final class RawHTTPConnection {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    private let socket: Int32

    /// Connects to 127.0.0.1:`port` from `sourceAddress`: another loopback
    /// address (127.0.0.2) makes the connection another client.
    package init(port: Int, sourceAddress: String = "127.0.0.1", receiveTimeoutSeconds: Int = 10) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var source = sockaddr_in()
        source.sin_family = sa_family_t(AF_INET)
        source.sin_addr.s_addr = inet_addr(sourceAddress)
        let bound = withUnsafePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(socket)
            throw Failure(description: "bind() to \(sourceAddress) failed: errno \(code)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(socket)
            throw Failure(description: "connect() failed: errno \(code)")
        }
        setReceiveTimeout(seconds: receiveTimeoutSeconds)
    }

    /// How long a read may wait before the request counts as unanswered.
    package func setReceiveTimeout(seconds: Int) {
        setReceiveTimeout(milliseconds: seconds * 1000)
    }

    package func setReceiveTimeout(milliseconds: Int) {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        Glibc.close(socket)
    }

    package func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure(description: "send() failed: errno \(errno)") }
            offset += written
        }
    }

    /// Sends a request with `Content-Length` when there is a body.
    package func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) throws -> RawHTTPResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse(expectBody: method != "HEAD")
    }

    private var buffer: [UInt8] = []

    /// Reads one response: the head, then `Content-Length` bytes of body
    /// (or everything until the server closes when there is no length).
    package func readResponse(expectBody: Bool = true) throws -> RawHTTPResponse {
        let head = try readHead()
        var body: [UInt8] = []
        if expectBody {
            if let lengthText = head.headers["Content-Length"], let length = Int(lengthText) {
                while buffer.count < length {
                    guard try receiveMore() else { throw Failure(description: "connection closed inside a body") }
                }
                body = Array(buffer[..<length])
                buffer.removeFirst(length)
            } else {
                while try receiveMore() {}
                body = buffer
                buffer = []
            }
        }
        return RawHTTPResponse(status: head.status, headers: head.headers, body: body)
    }

    /// Reads a response's status line and header fields only, leaving its
    /// body to `readChunk` (a streamed response).
    package func readHead() throws -> RawHTTPResponse {
        let head = String(decoding: try readUntil(Array("\r\n\r\n".utf8)), as: UTF8.self)
        var lines = head.split(separator: "\r\n").map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(head)")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                name: String(line[..<colon]),
                value: String(line[line.index(after: colon)...].drop(while: { $0 == " " }))
            )
        }
        return RawHTTPResponse(status: status, headers: headers, body: [])
    }

    /// The next chunk of a chunked body; nil for the last (empty) chunk,
    /// which ends the body cleanly. Throws if the connection ends first.
    package func readChunk() throws -> [UInt8]? {
        let sizeLine = String(decoding: try readUntil(Array("\r\n".utf8)).dropLast(2), as: UTF8.self)
        guard let size = Int(sizeLine.split(separator: ";").first.map(String.init) ?? "", radix: 16) else {
            throw Failure(description: "bad chunk size line \(sizeLine)")
        }
        while buffer.count < size + 2 {
            guard try receiveMore() else { throw Failure(description: "connection closed inside a chunk") }
        }
        let chunk = Array(buffer[..<size])
        buffer.removeFirst(size + 2)
        if size == 0 { return nil }
        return chunk
    }

    /// Bytes up to and including `separator`, receiving as needed.
    private func readUntil(_ separator: [UInt8]) throws -> [UInt8] {
        while true {
            if let end = buffer.firstRange(of: separator)?.upperBound {
                defer { buffer.removeFirst(end) }
                return Array(buffer[..<end])
            }
            guard try receiveMore() else {
                throw Failure(description: "connection closed before \(separator.count == 4 ? "a response head" : "a line end")")
            }
        }
    }

    /// True when the server closes the connection within the receive timeout.
    package func waitForClose() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &scratch, scratch.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// True when the server has closed the connection; never waits.
    package func isClosedByServer() -> Bool {
        var scratch: UInt8 = 0
        let count = recv(socket, &scratch, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        return count < 0 && errno == ECONNRESET
    }

    private func receiveMore() throws -> Bool {
        var scratch = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket, &scratch, scratch.count, 0)
        if count == 0 { return false }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw Failure(description: "recv() failed: errno \(errno)")
        }
        buffer.append(contentsOf: scratch[..<count])
        return true
    }
}
