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
        members.sort { $0.0 < $1.0 }

        var output: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONStringWriter.append(name, to: &output)
            output.append(UInt8(ascii: ":"))
            switch value {
            case let .string(text): JSONStringWriter.append(text, to: &output)
            case let .integer(number): output.append(contentsOf: String(number).utf8)
            }
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    private enum Member {
        case string(String)
        case integer(Int)
    }
}
