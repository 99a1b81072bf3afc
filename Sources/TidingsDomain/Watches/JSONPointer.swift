/// RFC 6901 JSON pointer syntax: empty (the whole document) or a sequence of
/// `/token`, where `~` may only appear as `~0` or `~1`.
package enum JSONPointer {
    package static let maximumLength = 1000

    package static func isValid(_ pointer: String) -> Bool {
        guard !pointer.isEmpty else { return true }
        // The first byte: `hasPrefix` compares `Character`s, and `/\u{301}`
        // (a combining mark after the slash) is one.
        guard pointer.utf8.first == UInt8(ascii: "/") else { return false }
        var bytes = pointer.utf8.makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "~") {
                guard let escaped = bytes.next(), escaped == UInt8(ascii: "0") || escaped == UInt8(ascii: "1") else {
                    return false
                }
            }
        }
        return true
    }
}
