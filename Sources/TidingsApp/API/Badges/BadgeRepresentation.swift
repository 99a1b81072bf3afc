import FoundationEssentials
import TidingsDomain

/// `{"count", "sequence", "updated_at"}`: the badge as every device shows it.
struct BadgeRepresentation: Encodable, Sendable {
    let count: Int
    let sequence: Int
    let updatedAt: Date

    init(_ badge: Badge) {
        count = badge.count
        sequence = badge.sequence
        updatedAt = badge.updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case count, sequence
        case updatedAt = "updated_at"
    }
}
