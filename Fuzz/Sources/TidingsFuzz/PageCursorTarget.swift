import FoundationEssentials
import TidingsDomain

/// The `cursor` query parameter of every list endpoint. Any token: nil or a
/// cursor whose own token reads back as the same cursor. A cursor built from
/// the input (microseconds within PostgreSQL's timestamp range) round-trips.
enum PageCursorTarget {
    static func run(_ input: FuzzInput) {
        let text = input.string
        if let cursor = PageCursor(token: text) {
            let again = PageCursor(token: cursor.token)
            check(again == cursor, "\(text.debugDescription) -> \(cursor) -> \(cursor.token) -> \(String(describing: again))")
        }

        // About 126 years either side of 1970, where Double keeps every
        // microsecond exact.
        let limit: Int64 = 4_000_000_000_000_000
        let microseconds = input.int64Prefix % limit
        var uuidBytes = [UInt8](repeating: 0, count: 16)
        for (index, byte) in input.bytes.dropFirst(8).prefix(16).enumerated() { uuidBytes[index] = byte }
        let id = uuidBytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        let cursor = PageCursor(createdAt: Date(timeIntervalSince1970: Double(microseconds) / 1_000_000), id: id)
        let parsed = PageCursor(token: cursor.token)
        check(parsed?.id == id, "the id of \(cursor) did not round-trip: \(String(describing: parsed))")
        if let parsed {
            check(parsed.token == cursor.token, "\(cursor.token) read back as \(parsed.token)")
        }
    }
}
