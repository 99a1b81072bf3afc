import FoundationEssentials
import TidingsObservability

/// Writes JSON straight into bytes, for the representations every hot
/// request returns (a watch, a device, a badge): Foundation's `JSONEncoder`
/// builds a tree of boxed values and sorts each object's keys on every call,
/// which was about a sixth of the server's CPU for `GET /v1/watches/{id}`.
///
/// The output is byte for byte what `JSONCoding.encoder` writes for the same
/// value: no whitespace, `/` unescaped, the same string escapes, dates as
/// `UTCTimestamp`. The caller writes each object's keys in sorted order (as
/// `.sortedKeys` would); tests compare every writer with the encoder.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// True after a value, so the next key or array element needs a comma.
    private var needsComma = false

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// `"key":`; the value written next belongs to it. Keys are the
    /// caller's constants, so they are copied without escaping.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    public mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    public mutating func value(_ value: String?) {
        guard let value else { return null() }
        separate()
        appendQuoted(value)
        needsComma = true
    }

    public mutating func value(_ value: Int) {
        separate()
        append(String(value))
        needsComma = true
    }

    public mutating func value(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
        needsComma = true
    }

    /// As `JSONCoding.encoder` writes dates: `UTCTimestamp` in a string.
    public mutating func value(_ value: Date?) {
        guard let value else { return null() }
        separate()
        bytes.append(UInt8(ascii: "\""))
        UTCTimestamp.append(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// The lower-case form of `UUID.canonicalString`, without building a string.
    public mutating func value(_ value: UUID) {
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

    public mutating func value(_ values: [String]) {
        beginArray()
        for element in values { value(element) }
        endArray()
    }

    // MARK: Bytes

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func append(_ literal: String) {
        bytes.append(contentsOf: literal.utf8)
    }

    /// The escapes `JSONEncoder` uses: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
    /// `\t`, `\u00xx` (lower-case) for other control characters, everything
    /// else (`/` and non-ASCII included) as is.
    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
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
