package import FoundationEssentials

/// The one JSON writer: HTTP responses, problem documents, log lines, the
/// webhook envelope, the poller's batch rows and canonical JSON all write
/// through it, so a fix to escaping happens once. It writes UTF-8 straight
/// into bytes: Foundation's `JSONEncoder` builds a tree of boxed values and
/// sorts each object's keys on every call, which was about a sixth of the
/// server's CPU for `GET /v1/watches/{id}`.
///
/// Strings are escaped as `JSONEncoder` escapes them (`\"`, `\\`, `\b`, `\f`,
/// `\n`, `\r`, `\t`, lower-case `\u00xx` for other control characters,
/// everything else, `/` and non-ASCII included, as is), so hand-written
/// representations are byte for byte what the encoder writes; the caller
/// writes each object's keys in the order it wants (sorted, to match
/// `.sortedKeys`).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// True after a value, so the next key or array element needs a comma.
    private var needsComma = false

    package init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// The bytes written, as text.
    package var text: String {
        String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Structure

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// `"key":` for a constant key of the caller's, copied without escaping;
    /// the value written next belongs to it.
    package mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"key":` for a key that comes from data, escaped.
    package mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    package mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    package mutating func value(_ value: String?) {
        guard let value else { return null() }
        separate()
        appendQuoted(value)
        needsComma = true
    }

    package mutating func value(_ value: Int) {
        separate()
        append(String(value))
        needsComma = true
    }

    package mutating func value(_ value: Int?) {
        guard let value else { return null() }
        self.value(value)
    }

    package mutating func value(_ value: Int64) {
        separate()
        append(String(value))
        needsComma = true
    }

    /// The shortest text that reads back as the same double; JSON has no
    /// NaN or infinity, so those are null.
    package mutating func value(_ value: Double) {
        guard value.isFinite else { return null() }
        separate()
        append(value.description)
        needsComma = true
    }

    package mutating func value(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
        needsComma = true
    }

    /// Lower-case, as PostgreSQL prints uuids, without building a string.
    package mutating func value(_ value: UUID) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: value.uuid) { raw in
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    package mutating func value(_ values: [String]) {
        beginArray()
        for element in values { value(element) }
        endArray()
    }

    /// A value already in JSON (stored event data), copied as is.
    package mutating func rawValue(_ json: some StringProtocol) {
        separate()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }

    /// A string value whose characters the caller appends unescaped (an
    /// RFC 3339 timestamp, digits): `write` gets the buffer between the quotes.
    package mutating func unescapedString(_ write: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    // MARK: Bytes

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func append(_ literal: String) {
        bytes.append(contentsOf: literal.utf8)
    }

    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            // Most strings need no escape: copy runs between escapes whole.
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func appendEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            append("u00")
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}
