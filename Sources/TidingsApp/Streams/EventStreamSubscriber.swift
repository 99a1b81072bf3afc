import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

/// One open event stream: its user, the types it asked for, and how far it
/// has been sent.
///
/// `@unchecked Sendable`: `position` and `lastSentAt` are set in `init`,
/// before the subscriber is published to the hub, and afterwards read and
/// written only by the hub's one worker thread.
final class EventStreamSubscriber: @unchecked Sendable {
    let userID: UUID
    let stream: HTTPResponseStream
    /// nil: every type.
    let types: Set<WebhookEventType>?
    /// The last position this stream has been sent (or skipped past).
    var position: FeedPosition
    var lastSentAt: ContinuousClock.Instant

    init(userID: UUID, stream: HTTPResponseStream, types: Set<WebhookEventType>?, position: FeedPosition, now: ContinuousClock.Instant) {
        self.userID = userID
        self.stream = stream
        self.types = types
        self.position = position
        self.lastSentAt = now
    }

    func wants(_ type: WebhookEventType) -> Bool {
        types?.contains(type) ?? true
    }
}
