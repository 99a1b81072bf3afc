package import FoundationEssentials

/// A delivery a dispatcher holds the lease of, with everything needed to
/// send it: the event as it is now (read at claim time, after any
/// supersede) and the webhook's URL and signing secrets.
package struct ClaimedDelivery: Sendable {
    package let id: UUID
    package let webhookID: UUID
    /// The webhook's owner; nil for a global webhook.
    package let userID: UUID?
    package let eventID: UUID
    package let eventType: String
    /// The event's `data` as JSON text.
    package let eventData: String
    /// ISO 8601 creation time of the event.
    package let eventTimestamp: String
    package let url: String
    /// The current secret first, then the previous one while it still
    /// signs, as stored: sealed (`StoredSecrets.openWebhookSecret` opens
    /// them where the message is signed).
    package let secrets: [String]
    /// Attempts made before this one.
    package let attemptCount: Int
    /// How long the lease runs from the start of the claim: longer for a
    /// delivery claimed to wait in the dispatcher's queue.
    package let leaseDuration: Duration

    package init(
        id: UUID, webhookID: UUID, userID: UUID?, eventID: UUID, eventType: String, eventData: String,
        eventTimestamp: String, url: String, secrets: [String], attemptCount: Int, leaseDuration: Duration
    ) {
        self.id = id
        self.webhookID = webhookID
        self.userID = userID
        self.eventID = eventID
        self.eventType = eventType
        self.eventData = eventData
        self.eventTimestamp = eventTimestamp
        self.url = url
        self.secrets = secrets
        self.attemptCount = attemptCount
        self.leaseDuration = leaseDuration
    }
}
