package import FoundationEssentials
import TidingsCrypto
import TidingsObservability

/// Where a list page ends: the creation time and id of its last item. Lists
/// are ordered by `(created_at, id)`, so a cursor stays valid while rows are
/// inserted or deleted around it. Clients see it as an opaque token.
package struct PageCursor: Sendable, Equatable {
    package let createdAt: Date
    package let id: UUID

    package init(createdAt: Date, id: UUID) {
        self.createdAt = createdAt
        self.id = id
    }

    /// The position before every row.
    static let start = PageCursor(createdAt: .distantPast, id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))

    /// `base64url("<unix microseconds>.<uuid>")`: microseconds are what
    /// PostgreSQL stores, so the position round-trips exactly.
    package var token: String {
        let microseconds = createdAt.unitsSince1970(perSecond: 1_000_000, rounding: .toNearestOrAwayFromZero)
        return Base64.encodeURLSafe(Array("\(microseconds).\(id.uuidString.lowercased())".utf8))
    }

    package init?(token: String) {
        guard token.utf8.count <= 128,
            let bytes = Base64.decode(token),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let microseconds = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
            return nil
        }
        // Only positions a real row can have: a time outside the years
        // PostgreSQL and the API write is not a cursor this API returned.
        let createdAt = Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
        guard createdAt.isSupported else { return nil }
        self.init(createdAt: createdAt, id: id)
    }
}
