/// What a webhook is created with.
package struct NewWebhook: Sendable {
    package var url: String
    /// Distinct types; an empty list is not allowed.
    package var eventTypes: [WebhookEventType]
    package var description: String?

    package init(url: String, eventTypes: [WebhookEventType] = WebhookEventType.subscribable, description: String? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
    }
}
