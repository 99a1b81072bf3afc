import FoundationEssentials

/// One event on its way to one webhook, with its attempts so far.
public struct Delivery: Sendable, Equatable {
    public let id: UUID
    public let webhookID: UUID
    /// The event it carries now; `webhook-id` on the wire.
    public let eventID: UUID
    public let eventType: String
    public let status: DeliveryStatus
    public let attemptCount: Int
    /// When the next attempt is due; nil unless pending.
    public let nextAttemptAt: Date?
    public let lastStatusCode: Int?
    public let lastError: String?
    public let completedAt: Date?
    public let createdAt: Date
    public let updatedAt: Date
    /// Oldest first.
    public let attempts: [DeliveryAttempt]
}
