package import FoundationEssentials

/// One event on its way to one webhook, with its attempts so far.
package struct Delivery: Sendable, Equatable {
    package let id: UUID
    package let webhookID: UUID
    /// The event it carries now; `webhook-id` on the wire.
    package let eventID: UUID
    package let eventType: String
    package let status: DeliveryStatus
    package let attemptCount: Int
    /// When the next attempt is due; nil unless pending.
    package let nextAttemptAt: Date?
    package let lastStatusCode: Int?
    package let lastError: String?
    package let completedAt: Date?
    package let createdAt: Date
    package let updatedAt: Date
    /// The latest `DeliveryAttempt.listedPerDelivery`, oldest first.
    package let attempts: [DeliveryAttempt]
}
