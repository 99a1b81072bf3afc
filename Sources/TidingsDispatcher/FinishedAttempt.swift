import FoundationEssentials
import TidingsDomain
import TidingsHTTPClient
import TidingsSynchronization

/// An attempt as the HTTP client reported it, before the retry policy
/// decided what follows.
struct FinishedAttempt: Sendable {
    let delivery: ClaimedDelivery
    let attemptedAt: Date
    let elapsed: Duration
    let result: Result<HTTPClientResponse, HTTPClientError>

    /// The attempt as it is stored, with the policy's decision.
    func completed(policy: RetryPolicy, now: Date) -> CompletedAttempt {
        var statusCode: Int?
        var error: String?
        var snippet: (text: String?, truncated: Bool) = (nil, false)
        var retryAfter: Duration?
        switch result {
        case .success(let response):
            statusCode = response.status
            snippet = Self.snippet(response.body, truncated: response.isBodyTruncated)
            retryAfter = response.header("retry-after").flatMap { RetryAfter.delay(from: $0, now: now, atMost: policy.longestRetryAfter) }
            if (300...399).contains(response.status) {
                error = "redirects are not followed"
            }
        case .failure(let failure):
            error = failure.userDescription
        }
        let decision = policy.decide(attemptsMade: delivery.attemptCount + 1, statusCode: statusCode, retryAfter: retryAfter)
        let outcome: CompletedAttempt.Outcome
        switch decision {
        case .succeeded: outcome = .succeeded
        case .retry(let delay): outcome = .retry(at: now + delay.inSeconds)
        case .failed: outcome = .failed
        case .gone: outcome = .gone
        }
        return CompletedAttempt(
            deliveryID: delivery.id,
            webhookID: delivery.webhookID,
            eventID: delivery.eventID,
            attemptedAt: attemptedAt,
            durationMilliseconds: Int(clamping: elapsed.inMilliseconds),
            statusCode: statusCode,
            error: error,
            responseBody: snippet.text,
            responseTruncated: snippet.truncated,
            outcome: outcome
        )
    }

    /// The body as text within the snippet limit: invalid UTF-8 replaced,
    /// NUL (which PostgreSQL text cannot hold) dropped, cut at a character
    /// boundary if the replacements made it longer.
    static func snippet(_ body: [UInt8], truncated: Bool) -> (text: String?, truncated: Bool) {
        guard !body.isEmpty else { return (nil, truncated) }
        let limit = DeliveryAttempt.responseSnippetLimit
        var text = String(decoding: body, as: UTF8.self)
        if text.utf8.contains(0) {
            text.unicodeScalars.removeAll { $0 == "\0" }
        }
        guard text.utf8.count > limit else { return (text, truncated) }
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            let length = UTF8.width(scalar)
            guard bytes + length <= limit else { break }
            kept.append(scalar)
            bytes += length
        }
        return (String(kept), true)
    }
}
