import TidingsJSON

/// The JSON body of an RFC 9457 problem, written by hand: it is small, has a
/// fixed shape and is produced on every error path, including ones where
/// encoding must not fail.
struct ProblemDocument {
    private static let standardMembers: Set<String> = ["type", "title", "status", "detail", "request_id"]

    let error: HTTPError
    let requestID: String?

    /// Members in sorted key order, like every other JSON response.
    func encoded() -> [UInt8] {
        var members: [(String, Member)] = [
            ("type", .string(error.type)),
            ("title", .string(error.title)),
            ("status", .integer(error.status.code)),
        ]
        if let detail = error.detail { members.append(("detail", .string(detail))) }
        if let requestID { members.append(("request_id", .string(requestID))) }
        for (name, value) in error.extensions where !Self.standardMembers.contains(name) {
            members.append((name, .string(value)))
        }
        // A name used by both kinds keeps its string value: one member each.
        for (name, value) in error.integerExtensions
        where !Self.standardMembers.contains(name) && error.extensions[name] == nil {
            members.append((name, .integer(value)))
        }
        members.sort { $0.0 < $1.0 }

        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        for (name, value) in members {
            writer.key(name)
            switch value {
            case .string(let text): writer.value(text)
            case .integer(let number): writer.value(number)
            }
        }
        writer.endObject()
        return writer.bytes
    }

    private enum Member {
        case string(String)
        case integer(Int)
    }
}
