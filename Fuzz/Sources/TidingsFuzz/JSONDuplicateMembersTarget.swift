import FoundationEssentials
@testable import TidingsHTTPServer

/// API request bodies: `JSONDuplicateMembers` (HTTPServer) refuses a body
/// that names a member twice in one object, which `JSONDecoder` would
/// silently read as one. Any bytes: no trap. On a body the server's decoder
/// accepts, it finds a repeated name exactly when a plain recursive reading
/// of the same JSON finds two names with the same unescaped bytes, and
/// those are exactly the names the decoder itself takes for one (equal as
/// `String`s).
enum JSONDuplicateMembersTarget {
    static func run(_ input: FuzzInput) {
        let found = JSONDuplicateMembers.firstRepeated(in: input.bytes)
        // decodeJSON refuses a body with a NUL (UTF-16, UTF-32) before either runs.
        guard !input.bytes.contains(0),
              (try? JSONCoding.decoder.decode(AnyJSONValue.self, from: Data(input.bytes))) != nil
        else { return }
        var reader = Reader(bytes: input.bytes)
        guard reader.value(), reader.atEnd else {
            check(false, "the decoder accepted \(input.string.debugDescription), the reference reader did not")
            return
        }
        // The decoder stops at a NUL after the value (`{"a":1}\0...`); the
        // scanner reads on, which can only refuse more. Compare whole texts.
        guard reader.index == input.bytes.count else { return }
        check((found != nil) == reader.repeatedBytes,
              "\(input.string.debugDescription): scanner says \(found ?? "no repeat"), reference \(reader.repeatedBytes)")
        check(reader.repeatedStrings == reader.repeatedBytes,
              "\(input.string.debugDescription): names equal as Strings \(reader.repeatedStrings), as bytes \(reader.repeatedBytes)")
    }

    /// Reads JSON the decoder has accepted (which includes trailing commas),
    /// noting repeated names.
    struct Reader {
        let bytes: [UInt8]
        var index = 0
        var repeatedBytes = false
        var repeatedStrings = false

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var atEnd: Bool {
            mutating get {
                skipSpace()
                return index == bytes.count || bytes[index] == 0
            }
        }

        mutating func value() -> Bool {
            skipSpace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string() != nil
            default:
                let start = index
                while index < bytes.count, !Self.endsScalar(bytes[index]) { index += 1 }
                return index > start
            }
        }

        private mutating func object() -> Bool {
            index += 1
            var byBytes = Set<[UInt8]>(), byStrings = Set<String>()
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return true
            }
            while true {
                skipSpace()
                // The decoder takes a trailing comma (`{"a":1,}`).
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return true
                }
                guard let name = string() else { return false }
                if !byBytes.insert(Array(name.utf8)).inserted { repeatedBytes = true }
                if !byStrings.insert(name).inserted { repeatedStrings = true }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                guard value() else { return false }
                skipSpace()
                guard index < bytes.count else { return false }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return true
                default: return false
                }
            }
        }

        private mutating func array() -> Bool {
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return true
            }
            while true {
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return true
                }
                guard value() else { return false }
                skipSpace()
                guard index < bytes.count else { return false }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return true
                default: return false
                }
            }
        }

        /// The string at `index`, unescaped as the decoder reads it.
        private mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            var end = index + 1
            var escaped = false
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                if bytes[end] == UInt8(ascii: "\\") {
                    escaped = true
                    end += 1
                }
                end += 1
            }
            guard end < bytes.count else { return nil }
            defer { index = end + 1 }
            let raw = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            guard escaped else { return raw }
            return (try? JSONCoding.decoder.decode(String.self, from: Data(bytes[index...end]))) ?? raw
        }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private static func endsScalar(_ byte: UInt8) -> Bool {
            // The decoder ends a number or literal at a NUL too (`7\0`).
            [UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D, 0].contains(byte)
        }
    }
}
