/// One page of a list and the cursor of the next page, if there is one.
public struct Page<Item: Sendable>: Sendable {
    public let items: [Item]
    public let nextCursor: PageCursor?

    public init(items: [Item], nextCursor: PageCursor?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// Builds a page from `limit + 1` fetched rows: the extra row only tells
    /// that another page exists.
    static func from(rows: [Item], limit: Int, cursor: (Item) -> PageCursor) -> Page {
        guard rows.count > limit else { return Page(items: rows, nextCursor: nil) }
        let items = Array(rows.prefix(limit))
        return Page(items: items, nextCursor: items.last.map(cursor))
    }
}

/// What a client asked for: up to `limit` items after `cursor`.
public struct PageRequest: Sendable {
    public static let defaultLimit = 50
    public static let maximumLimit = 200

    public let limit: Int
    public let cursor: PageCursor?

    public init(limit: Int = PageRequest.defaultLimit, cursor: PageCursor? = nil) {
        self.limit = min(max(limit, 1), Self.maximumLimit)
        self.cursor = cursor
    }

    var after: PageCursor {
        cursor ?? .start
    }
}
