import TidingsJSON

/// `{"type","timestamp","data"}`: an event as webhooks receive it and as
/// the event stream sends it. The data is the stored JSON as is, so
/// nothing is re-encoded on the way out.
package enum EventBody {
    package static func json(type: String, timestamp: String, data: String) -> [UInt8] {
        var writer = JSONWriter(capacity: data.utf8.count + 96)
        writer.beginObject()
        writer.key("type")
        writer.value(type)
        writer.key("timestamp")
        writer.value(timestamp)
        writer.key("data")
        writer.rawValue(data)
        writer.endObject()
        return writer.bytes
    }
}
