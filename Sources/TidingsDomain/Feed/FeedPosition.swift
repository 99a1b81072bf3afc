/// A place in a user's one order of changes and events (migration 0031):
/// what `GET /v1/changes` returns as `next_cursor` and takes as `after`,
/// what the event stream sends as `id:`, and what a sync push carries.
/// Clients treat it as opaque; it is written as the decimal position.
package struct FeedPosition: Sendable, Hashable, Comparable {
    /// Before every row of every user.
    package static let start = FeedPosition(0)

    package let value: Int64

    package init(_ value: Int64) {
        self.value = value
    }

    /// Only what this API writes: 1 to 19 ASCII digits naming a value
    /// from 0 to `Int64.max`, nothing else (no sign, spaces or exponent).
    package init?(token: some StringProtocol) {
        let utf8 = token.utf8
        guard (1...19).contains(utf8.count), utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = Int64(token)
        else { return nil }
        self.value = value
    }

    package var token: String {
        String(value)
    }

    package static func < (lhs: FeedPosition, rhs: FeedPosition) -> Bool {
        lhs.value < rhs.value
    }
}
