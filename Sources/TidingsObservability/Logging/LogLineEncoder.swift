package import FoundationEssentials
package import TidingsJSON

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
        var writer = JSONWriter(capacity: 160 + message.utf8.count + metadata.count * 40)
        writer.beginObject()
        writer.key("ts")
        writer.value(timestamp)
        writer.key("level")
        writer.value(level.rawValue)
        writer.key("logger")
        writer.value(label)
        writer.key("msg")
        writer.value(message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            writer.key(key)
            writer.value(value)
        }
        writer.endObject()
        return writer.text
    }
}
