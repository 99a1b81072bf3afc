import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsJSON
import TidingsObservability

/// `{"count", "sequence", "updated_at"}`: the badge as every device shows it.
struct BadgeRepresentation: Sendable {
    let count: Int
    let sequence: Int
    let updatedAt: Date

    init(_ badge: Badge) {
        count = badge.count
        sequence = badge.sequence
        updatedAt = badge.updatedAt
    }
}

extension BadgeRepresentation: JSONWritable {
    /// Keys in sorted order.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("count")
        writer.value(count)
        writer.key("sequence")
        writer.value(sequence)
        writer.key("updated_at")
        writer.value(updatedAt)
        writer.endObject()
    }
}
