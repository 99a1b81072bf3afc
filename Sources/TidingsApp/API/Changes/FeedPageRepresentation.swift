import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsJSON
import TidingsObservability

/// `{"data": [...], "next_cursor": "...", "badge": {...}}`: a list page
/// whose cursor is never null, since the feed always has a place to resume.
struct FeedPageRepresentation: Sendable {
    let data: [FeedChangeRepresentation]
    let nextCursor: String
    let badge: BadgeRepresentation

    init(_ page: FeedPage) {
        data = page.changes.map(FeedChangeRepresentation.init)
        nextCursor = page.next.token
        badge = BadgeRepresentation(page.badge)
    }
}

/// A change as the feed lists it: the history's representation, plus its
/// `cursor` and its watch's `watch_name` and `watch_url`.
struct FeedChangeRepresentation: Sendable {
    let item: FeedChange

    init(_ item: FeedChange) {
        self.item = item
    }
}

/// The feed answers with up to 200 changes a page: written by hand, the
/// page costs a fraction of the encoder's tree of boxed values and key sorts
/// (about half of Tidings' CPU for a page of 50 in `bench/feed.sh`).
extension FeedPageRepresentation: JSONWritable {
    /// Keys in sorted order.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("badge")
        badge.write(to: &writer)
        writer.key("data")
        writer.beginArray()
        for item in data {
            item.write(to: &writer)
        }
        writer.endArray()
        writer.key("next_cursor")
        writer.value(nextCursor)
        writer.endObject()
    }
}

extension FeedChangeRepresentation: JSONWritable {
    /// The keys of `ChangeRepresentation` and the feed's three in one
    /// object, in sorted order.
    func write(to writer: inout JSONWriter) {
        let change = item.change
        writer.beginObject()
        writer.key("content_length")
        writer.value(change.contentLength)
        writer.key("cursor")
        writer.value(item.position.token)
        writer.key("detected_at")
        writer.value(change.detectedAt)
        writer.key("diff")
        writer.value(change.diff)
        writer.key("http_status")
        writer.value(change.httpStatus)
        writer.key("id")
        writer.value(change.id)
        writer.key("new_hash")
        writer.value(change.newHash)
        writer.key("previous_hash")
        writer.value(change.previousHash)
        writer.key("read")
        writer.value(change.readAt != nil)
        writer.key("read_at")
        writer.value(change.readAt)
        writer.key("snapshot_truncated")
        writer.value(change.snapshotTruncated)
        writer.key("watch_id")
        writer.value(change.watchID)
        writer.key("watch_name")
        writer.value(item.watchName)
        writer.key("watch_url")
        writer.value(item.watchURL)
        writer.endObject()
    }
}
