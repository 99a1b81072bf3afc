package import FoundationEssentials
import TidingsHTTPClient

/// How a push service's answer to a Web Push reads (RFC 8030 5, 8292 4):
/// from the status alone (and `Retry-After`, and the `Location` of the
/// message as its id). Push services' error bodies differ from one vendor
/// to the next and are never read, let alone echoed into a reason.
package enum WebPushAnswer {
    /// A message URL (`Location`) longer than this is not kept.
    private static let maximumIDLength = 512

    package static func read(
        status: Int,
        headers: [(name: String, value: String)],
        now: Date,
        longestRetryAfter: Duration
    ) -> PushResult {
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name }?.value
        }
        let named = "Web Push: the push service answered \(status)"
        switch status {
        case 200...299:
            return .delivered(providerID: PushAnswerBody.identifier(header("location"), maximumLength: maximumIDLength) ?? "")
        case 404, 410:
            return .deviceGone(reason: named + ": the subscription is gone")
        case 413:
            return .failed(reason: named + ": the message is too large")
        case 429, 500...599:
            let delay = header("retry-after").flatMap { RetryAfter.delay(from: $0, now: now, atMost: longestRetryAfter) }
            return .retry(after: delay, reason: named)
        case 400:
            return .failed(reason: named + ": the request was refused as malformed")
        case 401, 403:
            return .failed(
                reason: named + ": the VAPID authorization was refused (a key the subscription was not made with, or the clock?)")
        default:
            return .failed(reason: named)
        }
    }
}
