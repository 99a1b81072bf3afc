import FoundationEssentials

/// A delivery a dispatcher holds the lease of, with everything needed to
/// send it: the event as it is now (read at claim time, after any
/// supersede) and the webhook's URL and signing secrets.
public struct ClaimedDelivery: Sendable {
    public let id: UUID
    public let webhookID: UUID
    public let eventID: UUID
    public let eventType: String
    /// The event's `data` as JSON text.
    public let eventData: String
    /// ISO 8601 creation time of the event.
    public let eventTimestamp: String
    public let url: String
    /// The current secret first, then the previous one while it still signs.
    public let secrets: [String]
    /// Attempts made before this one.
    public let attemptCount: Int
    /// How long the lease runs from the start of the claim: longer for a
    /// delivery claimed to wait in the dispatcher's queue.
    public let leaseDuration: Duration

    public init(
        id: UUID, webhookID: UUID, eventID: UUID, eventType: String, eventData: String,
        eventTimestamp: String, url: String, secrets: [String], attemptCount: Int, leaseDuration: Duration
    ) {
        self.id = id
        self.webhookID = webhookID
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
