import FoundationEssentials

/// Renders one log record as a single-line JSON object with a fixed key
/// order: `ts`, `level`, `logger`, `msg`, then metadata sorted by key.
/// Every request writes one of these, so it works on UTF-8 bytes and copies
/// strings that need no escaping in one piece.
enum LogLineEncoder {
    static func encode(
        timestamp: Date,
        level: LogLevel,
        label: String,
        message: String,
        metadata: [String: String]
    ) -> String {
        var line = [UInt8]()
        line.reserveCapacity(160 + message.utf8.count + metadata.count * 40)
        append("{\"ts\":\"", to: &line)
        UTCTimestamp.append(timestamp, to: &line)
        append("\",\"level\":\"", to: &line)
        append(level.rawValue, to: &line)
        append("\",\"logger\":", to: &line)
        appendQuoted(label, to: &line)
        append(",\"msg\":", to: &line)
        appendQuoted(message, to: &line)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line.append(UInt8(ascii: ","))
            appendQuoted(key, to: &line)
            line.append(UInt8(ascii: ":"))
            appendQuoted(value, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        return String(decoding: line, as: UTF8.self)
    }

    private static func append(_ literal: String, to line: inout [UInt8]) {
        line.append(contentsOf: literal.utf8)
    }

    static func appendQuoted(_ value: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        // Native strings expose their bytes in one piece: scanning and
        // copying that buffer is several times faster than iterating the
        // UTF-8 view, and most values need no escaping.
        let copiedWhole = value.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: needsEscape) else { return false }
            line.append(contentsOf: bytes)
            return true
        }
        if copiedWhole != true {
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""): append("\\\"", to: &line)
                case UInt8(ascii: "\\"): append("\\\\", to: &line)
                case UInt8(ascii: "\n"): append("\\n", to: &line)
                case UInt8(ascii: "\r"): append("\\r", to: &line)
                case UInt8(ascii: "\t"): append("\\t", to: &line)
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    append("\\u00", to: &line)
                    line.append(hex[Int(byte >> 4)])
                    line.append(hex[Int(byte & 0x0f)])
                default:
                    line.append(byte)
                }
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
