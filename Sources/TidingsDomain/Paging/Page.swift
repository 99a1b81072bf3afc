/// One page of a list and the cursor of the next page, if there is one.
package struct Page<Item: Sendable>: Sendable {
    package let items: [Item]
    package let nextCursor: PageCursor?

    package init(items: [Item], nextCursor: PageCursor?) {
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
package struct PageRequest: Sendable {
    package static let defaultLimit = 50
    package static let maximumLimit = 200

    package let limit: Int
    package let cursor: PageCursor?

    package init(limit: Int = PageRequest.defaultLimit, cursor: PageCursor? = nil) {
        self.limit = min(max(limit, 1), Self.maximumLimit)
        self.cursor = cursor
    }

    var after: PageCursor {
        cursor ?? .start
    }
}
