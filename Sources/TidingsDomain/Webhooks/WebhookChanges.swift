/// A partial update of a webhook: nil leaves a field as it is;
/// `description = .some(nil)` clears it.
public struct WebhookChanges: Sendable {
    public var url: String?
    public var eventTypes: [WebhookEventType]?
    public var description: String??
    /// false disables the webhook (keeping an earlier reason if it already
    /// was); true enables it again like `enable`.
    public var enabled: Bool?

    public init(url: String? = nil, eventTypes: [WebhookEventType]? = nil, description: String?? = nil, enabled: Bool? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
        self.enabled = enabled
    }

    public var isEmpty: Bool {
        url == nil && eventTypes == nil && description == nil && enabled == nil
    }
}
