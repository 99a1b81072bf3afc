package import FoundationEssentials
import TidingsHTTPClient

/// How an FCM HTTP v1 answer reads: the status, the `google.rpc.Status`
/// code (`error.status`) and FCM's own `errorCode` from `error.details`,
/// each kept only when it is a plain error code.
///
/// A device is gone on 404 `UNREGISTERED`, or on 400 `INVALID_ARGUMENT`
/// when the error is about the token: a `google.rpc.BadRequest` field
/// violation on `message.token`, or FCM's fixed message "The registration
/// token is not a valid FCM registration token". Any other 400 is this
/// push's fault and fails it. `SENDER_ID_MISMATCH` (403) fails the push
/// without removing the device: a push app registered with the wrong
/// service account would otherwise delete every Android device it has.
package enum FCMAnswer {
    /// Message names are `projects/<id>/messages/<id>`, well under this.
    private static let maximumNameLength = 512
    private static let invalidTokenMessage = "The registration token is not a valid FCM registration token"

    private struct ErrorBody: Decodable {
        struct Status: Decodable {
            var status: String?
            var message: String?
            var details: [Detail]?
        }

        struct Detail: Decodable {
            var errorCode: String?
            var fieldViolations: [FieldViolation]?
        }

        struct FieldViolation: Decodable {
            var field: String?
        }

        var error: Status
    }

    package static func read(
        status: Int,
        headers: [(name: String, value: String)],
        body: [UInt8],
        truncated: Bool,
        now: Date,
        longestRetryAfter: Duration
    ) -> PushAnswerReading {
        if status == 200 {
            struct Sent: Decodable {
                var name: String
            }
            let name = PushAnswerBody.identifier(
                PushAnswerBody.decode(Sent.self, from: body, truncated: truncated)?.name,
                maximumLength: maximumNameLength
            )
            return .result(.delivered(providerID: name ?? ""))
        }
        let error = PushAnswerBody.decode(ErrorBody.self, from: body, truncated: truncated)?.error
        let details = error?.details ?? []
        let errorCode = PushAnswerBody.code(details.lazy.compactMap(\.errorCode).first)
        let statusCode = PushAnswerBody.code(error?.status)
        let named = "FCM: \(errorCode ?? statusCode ?? "no readable error") (\(status))"
        switch status {
        case 404 where errorCode == "UNREGISTERED":
            return .result(.deviceGone(reason: named))
        case 400 where (errorCode ?? statusCode) == "INVALID_ARGUMENT":
            let aboutToken =
                details.contains { $0.fieldViolations?.contains { $0.field == "message.token" } ?? false }
                || error?.message == invalidTokenMessage
            return .result(aboutToken ? .deviceGone(reason: named + ": the registration token is not valid") : .failed(reason: named))
        case 401:
            return .credentialRejected(ifRepeated: .retry(after: nil, reason: named + " again with a fresh access token"))
        case 429, 500...599:
            let delay = headers.first { $0.name.lowercased() == "retry-after" }
                .flatMap { RetryAfter.delay(from: $0.value, now: now, atMost: longestRetryAfter) }
            return .result(.retry(after: delay, reason: named))
        default:
            return .result(.failed(reason: named))
        }
    }
}
