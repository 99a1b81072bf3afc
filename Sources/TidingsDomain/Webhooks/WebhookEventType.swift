/// The events a webhook can subscribe to.
public enum WebhookEventType: String, Sendable, CaseIterable {
    case watchChanged = "watch.changed"
    case badgeUpdated = "badge.updated"
    case watchFailing = "watch.failing"
    case watchRecovered = "watch.recovered"
    case webhookDisabled = "webhook.disabled"
}
