public import Foundation

/// The user's watches in creation order, fetched a page at a time as the
/// iteration goes on: `for try await watch in client.watches() { ... }`.
public struct WatchList: AsyncSequence, Sendable {
    /// Each element is one watch.
    public typealias Element = Watch

    let client: TidingsClient
    let filters: [URLQueryItem]
    let pageSize: Int

    /// Starts an iteration at the first page.
    public func makeAsyncIterator() -> Iterator {
        Iterator(list: self)
    }

    /// Walks the pages; one request per page, made when the previous page
    /// is used up.
    public struct Iterator: AsyncIteratorProtocol {
        let list: WatchList
        var buffered: [Watch] = []
        var index = 0
        var cursor: String?
        var finished = false

        init(list: WatchList) {
            self.list = list
        }

        /// The next watch, or nil after the last one.
        public mutating func next() async throws -> Watch? {
            while index == buffered.count {
                if finished { return nil }
                var query = list.filters + [URLQueryItem(name: "limit", value: String(list.pageSize))]
                if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
                let page = try await list.client.decoded(Page.self, for: list.client.request("GET", "/v1/watches", query: query))
                buffered = page.data
                index = 0
                cursor = page.nextCursor
                finished = page.nextCursor == nil
            }
            defer { index += 1 }
            return buffered[index]
        }
    }

    struct Page: Decodable {
        let data: [Watch]
        let nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }
}
