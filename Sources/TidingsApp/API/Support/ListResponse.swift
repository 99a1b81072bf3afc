import TidingsDomain

/// `{"data": [...], "next_cursor": "..." | null}`: every list endpoint's shape.
struct ListResponse<Item: Encodable & Sendable>: Encodable, Sendable {
    let data: [Item]
    let nextCursor: String?

    init(data: [Item], nextCursor: String?) {
        self.data = data
        self.nextCursor = nextCursor
    }

    init<Source>(_ page: Page<Source>, _ transform: (Source) -> Item) {
        self.init(data: page.items.map(transform), nextCursor: page.nextCursor?.token)
    }

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
