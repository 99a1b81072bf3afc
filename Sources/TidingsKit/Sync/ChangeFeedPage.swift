/// One answer of `GET /v1/changes`.
struct ChangeFeedPage: Decodable {
    let data: [FeedChange]
    let nextCursor: String
    let badge: Badge

    enum CodingKeys: String, CodingKey {
        case data, badge
        case nextCursor = "next_cursor"
    }
}
