/// A partial update of a webhook: nil leaves a field as it is;
/// `description = .some(nil)` clears it.
package struct WebhookChanges: Sendable {
    package var url: String?
    package var eventTypes: [WebhookEventType]?
    package var description: String??
    /// false disables the webhook (keeping an earlier reason if it already
    /// was); true enables it again like `enable`.
    package var enabled: Bool?

    package init(url: String? = nil, eventTypes: [WebhookEventType]? = nil, description: String?? = nil, enabled: Bool? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
        self.enabled = enabled
    }

    package var isEmpty: Bool {
        url == nil && eventTypes == nil && description == nil && enabled == nil
    }
}
