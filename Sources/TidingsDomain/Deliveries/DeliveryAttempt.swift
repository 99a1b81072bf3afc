package import FoundationEssentials

/// One HTTP attempt of a delivery, as the delivery log shows it.
package struct DeliveryAttempt: Sendable, Equatable {
    package let id: UUID
    /// The event sent (a badge delivery may carry a newer event than it was created for).
    package let eventID: UUID
    package let attemptedAt: Date
    package let durationMilliseconds: Int
    /// nil when no response arrived (timeout, refused connection, blocked address).
    package let statusCode: Int?
    package let error: String?
    /// The start of the response body: at most `responseSnippetLimit`
    /// bytes are stored, at most `listedBodyLimit` characters listed.
    package let responseBody: String?
    /// The body shown is not the whole body the receiver sent.
    package let responseTruncated: Bool

    /// Bytes of a response body kept per attempt.
    package static let responseSnippetLimit = 16_384
    /// Characters of an error message kept per attempt.
    package static let errorLimit = 1000
    /// Attempts a delivery shows in the delivery log (its latest ones);
    /// `attempt_count` tells how many there were.
    package static let listedPerDelivery = 5
    /// Characters of a stored response body the delivery log shows.
    package static let listedBodyLimit = 1024
}
