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
        let utf8 = value.utf8
        if !utf8.contains(where: needsEscape) {
            line.append(contentsOf: utf8)
        } else {
            for byte in utf8 {
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
