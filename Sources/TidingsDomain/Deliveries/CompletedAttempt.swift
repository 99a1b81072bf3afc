import FoundationEssentials

/// An attempt that finished, and what follows from it, as the dispatcher
/// writes it back.
public struct CompletedAttempt: Sendable {
    public enum Outcome: Sendable, Equatable {
        case succeeded
        /// Another attempt is due at this time.
        case retry(at: Date)
        /// The last attempt failed: the delivery stays `failed`.
        case failed
        /// 410 Gone: the delivery failed and its webhook is disabled at once.
        case gone
    }

    public let deliveryID: UUID
    public let webhookID: UUID
    public let eventID: UUID
    public let attemptedAt: Date
    public let durationMilliseconds: Int
    public let statusCode: Int?
    public let error: String?
    public let responseBody: String?
    public let responseTruncated: Bool
    public let outcome: Outcome

    public init(
        deliveryID: UUID, webhookID: UUID, eventID: UUID, attemptedAt: Date, durationMilliseconds: Int,
        statusCode: Int?, error: String?, responseBody: String?, responseTruncated: Bool, outcome: Outcome
    ) {
        self.deliveryID = deliveryID
        self.webhookID = webhookID
        self.eventID = eventID
        self.attemptedAt = attemptedAt
        self.durationMilliseconds = durationMilliseconds
        self.statusCode = statusCode
        // Within the column limits, so one odd value cannot fail a whole batch.
        self.error = error.map { String($0.unicodeScalars.prefix(DeliveryAttempt.errorLimit)) }
        self.responseBody = responseBody
        self.responseTruncated = responseTruncated
        self.outcome = outcome
    }
}
