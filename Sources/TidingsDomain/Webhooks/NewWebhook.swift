/// What a webhook is created with.
public struct NewWebhook: Sendable {
    public var url: String
    /// Distinct types; an empty list is not allowed.
    public var eventTypes: [WebhookEventType]
    public var description: String?

    public init(url: String, eventTypes: [WebhookEventType] = WebhookEventType.subscribable, description: String? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
    }
}
