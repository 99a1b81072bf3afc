import FoundationEssentials
import TidingsDomain

/// A delivery in the delivery log, with its latest attempts (oldest first).
struct DeliveryRepresentation: Encodable, Sendable {
    let delivery: Delivery

    init(_ delivery: Delivery) {
        self.delivery = delivery
    }

    enum CodingKeys: String, CodingKey {
        case id, status, attempts
        case webhookID = "webhook_id"
        case eventID = "event_id"
        case eventType = "event_type"
        case attemptCount = "attempt_count"
        case nextAttemptAt = "next_attempt_at"
        case lastStatusCode = "last_status_code"
        case lastError = "last_error"
        case completedAt = "completed_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(delivery.id.canonicalString, forKey: .id)
        try container.encode(delivery.webhookID.canonicalString, forKey: .webhookID)
        try container.encode(delivery.eventID.canonicalString, forKey: .eventID)
        try container.encode(delivery.eventType, forKey: .eventType)
        try container.encode(delivery.status.rawValue, forKey: .status)
        try container.encode(delivery.attemptCount, forKey: .attemptCount)
        try container.encode(delivery.nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(delivery.lastStatusCode, forKey: .lastStatusCode)
        try container.encode(delivery.lastError, forKey: .lastError)
        try container.encode(delivery.completedAt, forKey: .completedAt)
        try container.encode(delivery.createdAt, forKey: .createdAt)
        try container.encode(delivery.updatedAt, forKey: .updatedAt)
        try container.encode(delivery.attempts.map(AttemptRepresentation.init), forKey: .attempts)
    }
}

/// One attempt: when, how long, the status code or the error, and the
/// start of the response body.
struct AttemptRepresentation: Encodable, Sendable {
    let attempt: DeliveryAttempt

    init(_ attempt: DeliveryAttempt) {
        self.attempt = attempt
    }

    enum CodingKeys: String, CodingKey {
        case id, error
        case eventID = "event_id"
        case attemptedAt = "attempted_at"
        case durationMilliseconds = "duration_ms"
        case statusCode = "status_code"
        case responseBody = "response_body"
        case responseTruncated = "response_truncated"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(attempt.id.canonicalString, forKey: .id)
        try container.encode(attempt.eventID.canonicalString, forKey: .eventID)
        try container.encode(attempt.attemptedAt, forKey: .attemptedAt)
        try container.encode(attempt.durationMilliseconds, forKey: .durationMilliseconds)
        try container.encode(attempt.statusCode, forKey: .statusCode)
        try container.encode(attempt.error, forKey: .error)
        try container.encode(attempt.responseBody, forKey: .responseBody)
        try container.encode(attempt.responseTruncated, forKey: .responseTruncated)
    }
}
