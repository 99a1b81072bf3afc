package import FoundationEssentials

/// An attempt that finished, and what follows from it, as the dispatcher
/// writes it back.
package struct CompletedAttempt: Sendable {
    package enum Outcome: Sendable, Equatable {
        case succeeded
        /// Another attempt is due at this time.
        case retry(at: Date)
        /// The last attempt failed: the delivery stays `failed`.
        case failed
        /// 410 Gone: the delivery failed and its webhook is disabled at once.
        case gone
    }

    package let deliveryID: UUID
    package let webhookID: UUID
    package let eventID: UUID
    package let attemptedAt: Date
    package let durationMilliseconds: Int
    package let statusCode: Int?
    package let error: String?
    package let responseBody: String?
    package let responseTruncated: Bool
    package let outcome: Outcome

    package init(
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
