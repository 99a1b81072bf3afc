/// Reads a `text/event-stream` response as a browser's EventSource would,
/// one message at a time, from a chunked body on a `RawHTTPConnection`.
import Foundation

package final class ServerSentEventReader {
    /// One message: its fields, or only a comment (a heartbeat).
    package struct Message: Equatable {
        package var id: String?
        package var event: String?
        package var data: String?
        package var retry: String?
        package var isComment = false
    }

    private let connection: RawHTTPConnection
    private var text = ""

    package init(_ connection: RawHTTPConnection) {
        self.connection = connection
    }

    /// The next message; nil when the server ended the body cleanly.
    /// Throws when the connection breaks or the receive timeout passes.
    package func next() throws -> Message? {
        while true {
            if let end = text.range(of: "\n\n") {
                let block = String(text[..<end.lowerBound])
                text.removeSubrange(..<end.upperBound)
                return Self.parse(block)
            }
            guard let chunk = try connection.readChunk() else { return nil }
            text += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// The next message that is not a comment.
    package func nextEvent() throws -> Message? {
        while let message = try next() {
            if !message.isComment { return message }
        }
        return nil
    }

    private static func parse(_ block: String) -> Message {
        var message = Message()
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                message.isComment = true
                continue
            }
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1].drop(while: { $0 == " " })) : ""
            switch parts[0] {
            case "id": message.id = value
            case "event": message.event = value
            case "data": data.append(value)
            case "retry": message.retry = value
            default: break
            }
        }
        if !data.isEmpty {
            message.data = data.joined(separator: "\n")
            message.isComment = false
        }
        if message.id != nil || message.event != nil || message.retry != nil { message.isComment = false }
        return message
    }
}
