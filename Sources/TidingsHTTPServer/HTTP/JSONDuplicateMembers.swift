import FoundationEssentials

/// Finds a member name that appears twice in one object of a JSON text.
/// `JSONDecoder` keeps one of the two values silently, so
/// `{"url": "http://a/", "url": "http://b/"}` would mean whatever this
/// parser, a proxy or a log reader each chose; a body like that is refused
/// instead. Runs on text `JSONDecoder` has already accepted, so it need not
/// handle malformed input, and nesting is bounded by that decoder.
package enum JSONDuplicateMembers {
    private enum Frame {
        case object(names: Set<[UInt8]>, current: String?, expectingName: Bool)
        case array(index: Int)
    }

    /// The path of the first repeated member (`extract.css`,
    /// `headers.x-key`, `items[2].id`), or nil.
    package static func firstRepeated(in bytes: [UInt8]) -> String? {
        var stack: [Frame] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let (raw, end, escaped) = stringContent(bytes, from: index)
                index = end
                guard case .object(var names, _, true) = stack.last else { continue }
                let name = escaped ? unescaped(raw) : raw
                let text = String(decoding: name, as: UTF8.self)
                if !names.insert(name).inserted {
                    return path(stack.dropLast()).map { $0 + "." + text } ?? text
                }
                stack[stack.count - 1] = .object(names: names, current: text, expectingName: false)
                continue
            case UInt8(ascii: "{"):
                stack.append(.object(names: [], current: nil, expectingName: true))
            case UInt8(ascii: "["):
                stack.append(.array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
            case UInt8(ascii: ","):
                switch stack.last {
                case .object(let names, let current, _):
                    stack[stack.count - 1] = .object(names: names, current: current, expectingName: true)
                case .array(let position):
                    stack[stack.count - 1] = .array(index: position + 1)
                case nil:
                    break
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The bytes between the quotes of the string starting at `start`, the
    /// index after its closing quote, and whether it holds escapes.
    private static func stringContent(_ bytes: [UInt8], from start: Int) -> ([UInt8], Int, Bool) {
        var index = start + 1
        var escaped = false
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") {
                escaped = true
                index += 1
            }
            index += 1
        }
        return (Array(bytes[min(start + 1, bytes.count)..<min(index, bytes.count)]), index + 1, escaped)
    }

    /// A name with escapes, as the decoder reads it (rare: one decode).
    private static func unescaped(_ raw: [UInt8]) -> [UInt8] {
        let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
        guard let text = try? JSONCoding.decoder.decode(String.self, from: quoted) else { return raw }
        return Array(text.utf8)
    }

    /// The path of the members and elements `frames` are in.
    private static func path(_ frames: ArraySlice<Frame>) -> String? {
        var path = ""
        for frame in frames {
            switch frame {
            case .object(_, let current, _):
                if let current { path += path.isEmpty ? current : "." + current }
            case .array(let index):
                path += "[\(index)]"
            }
        }
        return path.isEmpty ? nil : path
    }
}
