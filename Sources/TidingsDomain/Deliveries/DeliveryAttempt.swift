import FoundationEssentials

/// One HTTP attempt of a delivery, as the delivery log shows it.
public struct DeliveryAttempt: Sendable, Equatable {
    public let id: UUID
    /// The event sent (a badge delivery may carry a newer event than it was created for).
    public let eventID: UUID
    public let attemptedAt: Date
    public let durationMilliseconds: Int
    /// nil when no response arrived (timeout, refused connection, blocked address).
    public let statusCode: Int?
    public let error: String?
    /// The start of the response body, at most `DeliveryAttempt.responseSnippetLimit` bytes.
    public let responseBody: String?
    public let responseTruncated: Bool

    /// Bytes of a response body kept per attempt.
    public static let responseSnippetLimit = 16_384
    /// Characters of an error message kept per attempt.
    public static let errorLimit = 1000
}
