package import FoundationEssentials
import TidingsHTTPClient

/// How an APNs answer reads (Apple's "Handling notification responses from
/// APNs"): the status first, then the `reason` of the JSON body, which is
/// kept only when it is a plain error code.
package enum APNsAnswer {
    /// `apns-id` values are UUIDs; anything longer is not kept.
    private static let maximumIDLength = 64

    package static func read(
        status: Int,
        headers: [(name: String, value: String)],
        body: [UInt8],
        truncated: Bool,
        sentID: String?,
        now: Date,
        longestRetryAfter: Duration
    ) -> PushAnswerReading {
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name }?.value
        }
        if status == 200 {
            let id = PushAnswerBody.identifier(header("apns-id"), maximumLength: maximumIDLength) ?? sentID ?? ""
            return .result(.delivered(providerID: id))
        }
        struct ErrorBody: Decodable {
            var reason: String
        }
        let reason = PushAnswerBody.code(PushAnswerBody.decode(ErrorBody.self, from: body, truncated: truncated)?.reason)
        let named = "APNs: \(reason ?? "no readable reason") (\(status))"
        switch (status, reason) {
        case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (410, _):
            return .result(.deviceGone(reason: named))
        case (403, "ExpiredProviderToken"):
            return .credentialRejected(ifRepeated: .retry(after: nil, reason: named + " again with a fresh token; is the clock right?"))
        case (403, "InvalidProviderToken"):
            return .credentialRejected(ifRepeated: .failed(reason: named + ": check the push app's key id, team id and key"))
        case (429, _), (500...599, _):
            let delay = header("retry-after").flatMap { RetryAfter.delay(from: $0, now: now, atMost: longestRetryAfter) }
            return .result(.retry(after: delay, reason: named))
        default:
            return .result(.failed(reason: named))
        }
    }
}
