import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads HTTP/1.1 requests (Content-Length bodies) off one connection.
package struct HTTPRequestReader {
    package let descriptor: Int32
    private var buffer: [UInt8] = []

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next request, or nil when the peer closed or sent garbage.
    package mutating func next() -> TestRequest? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd = buffer.firstRange(of: terminator)
        while headEnd == nil {
            guard fill() else { return nil }
            // Anything but a request line (e.g. a TLS ClientHello) ends the connection.
            guard let first = buffer.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) else { return nil }
            headEnd = buffer.firstRange(of: terminator)
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<headEnd.upperBound)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var request = TestRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: [])
        let length = Int(request.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length {
            guard fill() else { return nil }
        }
        request.body = Array(buffer[..<length])
        buffer.removeSubrange(..<length)
        return request
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        var count = recv(descriptor, &chunk, chunk.count, 0)
        // A signal landing on this thread is not the peer closing.
        while count < 0 && errno == EINTR {
            count = recv(descriptor, &chunk, chunk.count, 0)
        }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}
