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
            var byBytes = Set<[UInt8]>(), byStrings = Set<String>()
            return elements(closedBy: UInt8(ascii: "}")) { reader in
                guard let name = reader.string() else { return false }
                if !byBytes.insert(Array(name.utf8)).inserted { reader.repeatedBytes = true }
                if !byStrings.insert(name).inserted { reader.repeatedStrings = true }
                reader.skipSpace()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":") else { return false }
                reader.index += 1
                return reader.value()
            }
        }

        private mutating func array() -> Bool {
            elements(closedBy: UInt8(ascii: "]")) { $0.value() }
        }

        /// The comma-separated elements of an object or array from its
        /// opening byte at `index` to `closing`. The decoder takes a
        /// trailing comma (`{"a":1,}`, `[1,]`).
        private mutating func elements(closedBy closing: UInt8, _ element: (inout Self) -> Bool) -> Bool {
            index += 1
            while true {
                skipSpace()
                if index < bytes.count, bytes[index] == closing {
                    index += 1
                    return true
                }
                guard element(&self) else { return false }
                skipSpace()
                guard index < bytes.count else { return false }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case closing: return true
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
