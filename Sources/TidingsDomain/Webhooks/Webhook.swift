package import FoundationEssentials

/// A signed HTTP callback as the API shows it: never its secrets.
package struct Webhook: Sendable, Equatable {
    package let id: UUID
    /// nil for a global webhook.
    package let userID: UUID?
    package let url: String
    package let eventTypes: [WebhookEventType]
    package let description: String?
    /// Set while the webhook is disabled, by its owner or by the dispatcher.
    package let disabledAt: Date?
    package let disabledReason: String?
    package let createdAt: Date
    package let updatedAt: Date

    package init(
        id: UUID,
        userID: UUID?,
        url: String,
        eventTypes: [WebhookEventType],
        description: String?,
        disabledAt: Date?,
        disabledReason: String?,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    package var isGlobal: Bool {
        userID == nil
    }

    package var isEnabled: Bool {
        disabledAt == nil
    }
}
