/// RFC 6901 JSON pointer evaluation: `""` is the whole document, each
/// `/token` steps into an object member (`~1` is `/`, `~0` is `~`) or an
/// array element (a decimal index without leading zeros).
package enum JSONPointerEvaluator {
    package static func value(at pointer: String, in document: JSONValue) throws -> JSONValue {
        var value = document
        var evaluated = ""
        for token in try tokens(of: pointer) {
            switch value {
            case .object(let members):
                guard let member = members[token] else {
                    throw notFound("no member '\(token)'", at: evaluated, pointer: pointer)
                }
                value = member
            case .array(let elements):
                guard let index = arrayIndex(token) else {
                    throw notFound("'\(token)' is not an array index", at: evaluated, pointer: pointer)
                }
                guard index < elements.count else {
                    throw notFound("index \(index) is past the end (\(elements.count) elements)", at: evaluated, pointer: pointer)
                }
                value = elements[index]
            default:
                throw notFound("a scalar has no member '\(token)'", at: evaluated, pointer: pointer)
            }
            evaluated += "/" + escape(token)
        }
        return value
    }

    /// The unescaped reference tokens of `pointer`. By Unicode scalar, not by
    /// `Character`: a combining mark after `/` or `~1` (`/\u{301}`) or a
    /// prepended concatenation mark before `/` or `~` (`\u{600}/`) makes
    /// one `Character` of both, which hid the delimiter: `/a\u{600}/b` was
    /// the one member `a\u{600}/b`.
    static func tokens(of pointer: String) throws -> [String] {
        guard !pointer.isEmpty else { return [] }
        let scalars = Substring(pointer).unicodeScalars
        guard scalars.first == "/" else {
            throw ExtractionError(code: .invalidJSONPointer, message: "'\(pointer)' must be empty or start with '/'")
        }
        return try scalars.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { token in
            var unescaped = String.UnicodeScalarView()
            var characters = token.makeIterator()
            while let character = characters.next() {
                guard character == "~" else {
                    unescaped.append(character)
                    continue
                }
                switch characters.next() {
                case "0": unescaped.append("~")
                case "1": unescaped.append("/")
                default:
                    throw ExtractionError(code: .invalidJSONPointer, message: "'\(pointer)' has a '~' not followed by 0 or 1")
                }
            }
            return String(unescaped)
        }
    }

    private static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }

    /// A token as a pointer writes it: `~` as `~0`, `/` as `~1`. By
    /// Unicode scalar, like `tokens(of:)`: replacing by `Character` left a
    /// `/` with a combining mark after it (`/\u{301}`) unescaped.
    static func escape(_ token: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in token.unicodeScalars {
            switch scalar {
            case "~": escaped.append(contentsOf: "~0".unicodeScalars)
            case "/": escaped.append(contentsOf: "~1".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func notFound(_ problem: String, at location: String, pointer: String) -> ExtractionError {
        ExtractionError(
            code: .jsonPointerNotFound,
            message: "\(problem) at '\(location)' while evaluating '\(pointer)'"
        )
    }
}
