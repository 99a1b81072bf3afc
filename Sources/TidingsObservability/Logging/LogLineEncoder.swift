import FoundationEssentials

/// Renders one log record as a single-line JSON object with a fixed key
/// order: `ts`, `level`, `logger`, `msg`, then metadata sorted by key.
enum LogLineEncoder {
    static func encode(
        timestamp: Date,
        level: LogLevel,
        label: String,
        message: String,
        metadata: [String: String]
    ) -> String {
        var line = "{\"ts\":\""
        line += UTCTimestamp.format(timestamp)
        line += "\",\"level\":\"\(level.rawValue)\",\"logger\":"
        appendQuoted(label, to: &line)
        line += ",\"msg\":"
        appendQuoted(message, to: &line)
        for key in metadata.keys.sorted() {
            line += ","
            appendQuoted(key, to: &line)
            line += ":"
            appendQuoted(metadata[key]!, to: &line)
        }
        line += "}"
        return line
    }

    static func appendQuoted(_ value: String, to line: inout String) {
        line += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
