import TidingsJSON

extension JSONValue {
    /// A rendering that depends only on the value: object keys sorted by
    /// their UTF-8 bytes, no insignificant whitespace, only the escapes JSON
    /// requires. Two documents that differ only in key order or layout
    /// render identically.
    package var canonicalJSON: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.value(value)
        case .integer(let value): writer.value(value)
        case .number(let value): writer.value(value)
        case .string(let value): writer.value(value)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for key in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                writer.key(key)
                members[key]?.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
