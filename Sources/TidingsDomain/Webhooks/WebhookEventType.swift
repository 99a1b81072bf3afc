/// Every event Tidings stores and delivers: the one list of their names in
/// Swift (the `events.type` check of migration 0020 lists the same).
package enum WebhookEventType: String, Sendable, CaseIterable {
    case watchChanged = "watch.changed"
    case badgeUpdated = "badge.updated"
    case watchFailing = "watch.failing"
    case watchRecovered = "watch.recovered"
    case webhookDisabled = "webhook.disabled"
    /// A push service (or a gateway) reported a device's token dead; the
    /// device was removed.
    case deviceInvalidated = "device.invalidated"
    /// Sent on request to one webhook only, whatever it subscribes to.
    case webhookTest = "webhook.test"

    /// The types a webhook can subscribe to, in their canonical order.
    package static let subscribable = allCases.filter(\.isSubscribable)

    package var isSubscribable: Bool {
        self != .webhookTest
    }
}
