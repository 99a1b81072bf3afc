import TidingsDomain
import TidingsHTTPServer
import TidingsJSON

/// `{"data": [...], "next_cursor": "..." | null}`: every list endpoint's
/// shape. It is written the way its items are: `JSONWritable` items (watches,
/// devices) through `JSONWriter`, `Encodable` ones through the encoder.
struct ListResponse<Item: Sendable>: Sendable {
    let data: [Item]
    let nextCursor: String?

    init(data: [Item], nextCursor: String?) {
        self.data = data
        self.nextCursor = nextCursor
    }

    init<Source>(_ page: Page<Source>, _ transform: (Source) -> Item) {
        self.init(data: page.items.map(transform), nextCursor: page.nextCursor?.token)
    }
}

extension ListResponse: Encodable where Item: Encodable {
    enum CodingKeys: String, CodingKey {
        case data
        case nextCursor = "next_cursor"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data, forKey: .data)
        // Explicit null: clients test for it rather than for a missing key.
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

extension ListResponse: JSONWritable where Item: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("data")
        writer.beginArray()
        for item in data {
            item.write(to: &writer)
        }
        writer.endArray()
        writer.key("next_cursor")
        writer.value(nextCursor)
        writer.endObject()
    }
}
