import FoundationEssentials

/// A signed HTTP callback as the API shows it: never its secrets.
public struct Webhook: Sendable, Equatable {
    public let id: UUID
    /// nil for a global webhook.
    public let userID: UUID?
    public let url: String
    public let eventTypes: [WebhookEventType]
    public let description: String?
    /// Set while the webhook is disabled, by its owner or by the dispatcher.
    public let disabledAt: Date?
    public let disabledReason: String?
    public let createdAt: Date
    public let updatedAt: Date

    public init(
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

    public var isGlobal: Bool {
        userID == nil
    }

    public var isEnabled: Bool {
        disabledAt == nil
    }
}
