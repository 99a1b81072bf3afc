import FoundationEssentials
import TidingsDomain

/// `{"data": [...], "next_cursor": "...", "badge": {...}}`: a list page
/// whose cursor is never null, since the feed always has a place to resume.
struct FeedPageRepresentation: Encodable, Sendable {
    let data: [FeedChangeRepresentation]
    let nextCursor: String
    let badge: BadgeRepresentation

    init(_ page: FeedPage) {
        data = page.changes.map(FeedChangeRepresentation.init)
        nextCursor = page.next.token
        badge = BadgeRepresentation(page.badge)
    }

    enum CodingKeys: String, CodingKey {
        case data
        case nextCursor = "next_cursor"
        case badge
    }
}

/// A change as the feed lists it: the history's representation, plus its
/// `cursor` and its watch's `watch_name` and `watch_url`.
struct FeedChangeRepresentation: Encodable, Sendable {
    let item: FeedChange

    init(_ item: FeedChange) {
        self.item = item
    }

    enum CodingKeys: String, CodingKey {
        case cursor
        case watchName = "watch_name"
        case watchURL = "watch_url"
    }

    func encode(to encoder: any Encoder) throws {
        try ChangeRepresentation(item.change).encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(item.position.token, forKey: .cursor)
        try container.encode(item.watchName, forKey: .watchName)
        try container.encode(item.watchURL, forKey: .watchURL)
    }
}
