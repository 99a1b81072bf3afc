import TidingsDomain
import TidingsHTTPServer
import TidingsJSON

/// The answer to a read: the watch's unread count and the user's badge.
struct ReadReceiptRepresentation: Sendable {
    let receipt: ReadReceipt
}

extension ReadReceiptRepresentation: JSONWritable {
    /// Keys in sorted order.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("badge")
        BadgeRepresentation(receipt.badge).write(to: &writer)
        writer.key("unread_count")
        writer.value(receipt.unreadCount)
        writer.key("watch_id")
        writer.value(receipt.watchID)
        writer.endObject()
    }
}
