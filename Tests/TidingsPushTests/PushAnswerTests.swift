import Foundation
import Testing
import TidingsPush

/// How APNs and FCM answers are classified, hostile ones included.
@Suite struct PushAnswerTests {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    private func apns(
        _ status: Int, _ body: String = "", headers: [(name: String, value: String)] = [], truncated: Bool = false
    ) -> PushAnswerReading {
        APNsAnswer.read(
            status: status, headers: headers, body: Array(body.utf8), truncated: truncated,
            sentID: "SENT-ID", now: now, longestRetryAfter: .seconds(3600)
        )
    }

    private func fcm(
        _ status: Int, _ body: String = "", headers: [(name: String, value: String)] = [], truncated: Bool = false
    ) -> PushAnswerReading {
        FCMAnswer.read(
            status: status, headers: headers, body: Array(body.utf8), truncated: truncated,
            now: now, longestRetryAfter: .seconds(3600)
        )
    }

    private func reason(_ text: String) -> String { #"{"reason":"\#(text)"}"# }

    @Test func apnsSuccessKeepsTheIDAPNsGave() {
        #expect(apns(200, headers: [("apns-id", "6BFA-ID")]) == .result(.delivered(providerID: "6BFA-ID")))
        #expect(apns(200) == .result(.delivered(providerID: "SENT-ID")))
        #expect(apns(200, headers: [("apns-id", String(repeating: "9", count: 65))]) == .result(.delivered(providerID: "SENT-ID")))
        #expect(apns(200, headers: [("apns-id", "has space")]) == .result(.delivered(providerID: "SENT-ID")))
    }

    @Test func apnsDeadTokens() {
        #expect(
            apns(410, #"{"reason":"Unregistered","timestamp":1790000000000}"#) == .result(.deviceGone(reason: "APNs: Unregistered (410)")))
        #expect(apns(410, "garbage") == .result(.deviceGone(reason: "APNs: no readable reason (410)")))
        #expect(apns(400, reason("BadDeviceToken")) == .result(.deviceGone(reason: "APNs: BadDeviceToken (400)")))
        #expect(apns(400, reason("DeviceTokenNotForTopic")) == .result(.deviceGone(reason: "APNs: DeviceTokenNotForTopic (400)")))
        // A 400 must say it is about the token.
        #expect(apns(400, reason("BadTopic")) == .result(.failed(reason: "APNs: BadTopic (400)")))
        #expect(apns(400, reason("BadDeviceToken"), truncated: true) == .result(.failed(reason: "APNs: no readable reason (400)")))
    }

    @Test func apnsCredentialRejections() {
        #expect(
            apns(403, reason("ExpiredProviderToken"))
                == .credentialRejected(
                    ifRepeated: .retry(
                        after: nil, reason: "APNs: ExpiredProviderToken (403) again with a fresh token; is the clock right?"
                    )))
        #expect(
            apns(403, reason("InvalidProviderToken"))
                == .credentialRejected(
                    ifRepeated: .failed(
                        reason: "APNs: InvalidProviderToken (403): check the push app's key id, team id and key"
                    )))
        #expect(apns(403, reason("BadCertificateEnvironment")) == .result(.failed(reason: "APNs: BadCertificateEnvironment (403)")))
    }

    @Test func apnsRetryAfterIsParsedAndCapped() {
        #expect(
            apns(429, reason("TooManyRequests"), headers: [("Retry-After", "120")])
                == .result(.retry(after: .seconds(120), reason: "APNs: TooManyRequests (429)")))
        #expect(
            apns(503, headers: [("retry-after", "999999999999999999999999999999")])
                == .result(.retry(after: .seconds(3600), reason: "APNs: no readable reason (503)")))
        #expect(apns(503, headers: [("retry-after", "-3")]) == .result(.retry(after: nil, reason: "APNs: no readable reason (503)")))
        #expect(
            apns(503, headers: [("retry-after", "Mon, 21 Sep 2026 14:15:00 GMT")])
                == .result(.retry(after: .seconds(100), reason: "APNs: no readable reason (503)")))
        #expect(
            apns(500, headers: [("retry-after", "Thu, 01 Jan 1970 00:00:00 GMT")])
                == .result(.retry(after: .zero, reason: "APNs: no readable reason (500)")))
        #expect(apns(502) == .result(.retry(after: nil, reason: "APNs: no readable reason (502)")))
    }

    @Test func apnsReasonsNeverEchoFreeText() {
        let hostile = [
            reason("Bad token 0123abcd for app"), reason(String(repeating: "A", count: 65)),
            #"{"reason":42}"#, #"{"reason":"Unregistered\n"}"#, "[]", String(repeating: "[", count: 16_000),
        ]
        for body in hostile {
            #expect(apns(400, body) == .result(.failed(reason: "APNs: no readable reason (400)")))
        }
        #expect(apns(413, reason("PayloadTooLarge")) == .result(.failed(reason: "APNs: PayloadTooLarge (413)")))
        #expect(apns(404, reason("BadPath")) == .result(.failed(reason: "APNs: BadPath (404)")))
        #expect(apns(301) == .result(.failed(reason: "APNs: no readable reason (301)")))
    }

    private func fcmError(_ status: String?, code: String? = nil, field: String? = nil, message: String = "m") -> String {
        var details: [String] = []
        if let code { details.append(#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(code)"}"#) }
        if let field {
            details.append(
                #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)","description":"d"}]}"#)
        }
        let statusText = status.map { #""\#($0)""# } ?? "null"
        return #"{"error":{"code":400,"message":"\#(message)","status":\#(statusText),"details":[\#(details.joined(separator: ","))]}}"#
    }

    @Test func fcmSuccessKeepsTheMessageName() {
        #expect(
            fcm(200, #"{"name":"projects/p/messages/0:1500415314455276%31bd1c96"}"#)
                == .result(.delivered(providerID: "projects/p/messages/0:1500415314455276%31bd1c96")))
        #expect(fcm(200, "not json") == .result(.delivered(providerID: "")))
        #expect(fcm(200, #"{"name":"\#(String(repeating: "n", count: 513))"}"#) == .result(.delivered(providerID: "")))
    }

    @Test func fcmDeadTokens() {
        #expect(fcm(404, fcmError("NOT_FOUND", code: "UNREGISTERED")) == .result(.deviceGone(reason: "FCM: UNREGISTERED (404)")))
        #expect(fcm(404, fcmError("NOT_FOUND")) == .result(.failed(reason: "FCM: NOT_FOUND (404)")))
        #expect(
            fcm(400, fcmError("INVALID_ARGUMENT", code: "INVALID_ARGUMENT", field: "message.token"))
                == .result(.deviceGone(reason: "FCM: INVALID_ARGUMENT (400): the registration token is not valid")))
        #expect(
            fcm(400, fcmError("INVALID_ARGUMENT", message: "The registration token is not a valid FCM registration token"))
                == .result(.deviceGone(reason: "FCM: INVALID_ARGUMENT (400): the registration token is not valid")))
        #expect(
            fcm(400, fcmError("INVALID_ARGUMENT", code: "INVALID_ARGUMENT", field: "message.android.ttl"))
                == .result(.failed(reason: "FCM: INVALID_ARGUMENT (400)")))
        #expect(
            fcm(400, fcmError("INVALID_ARGUMENT", field: "message.token"), truncated: true)
                == .result(.failed(reason: "FCM: no readable error (400)")))
        #expect(
            fcm(403, fcmError("PERMISSION_DENIED", code: "SENDER_ID_MISMATCH")) == .result(.failed(reason: "FCM: SENDER_ID_MISMATCH (403)"))
        )
    }

    @Test func fcm401AsksForAFreshToken() {
        #expect(
            fcm(401, fcmError("UNAUTHENTICATED"))
                == .credentialRejected(
                    ifRepeated: .retry(
                        after: nil, reason: "FCM: UNAUTHENTICATED (401) again with a fresh access token"
                    )))
        #expect(
            fcm(401, "")
                == .credentialRejected(
                    ifRepeated: .retry(
                        after: nil, reason: "FCM: no readable error (401) again with a fresh access token"
                    )))
    }

    @Test func fcmRetries() {
        #expect(
            fcm(429, fcmError("RESOURCE_EXHAUSTED", code: "QUOTA_EXCEEDED"), headers: [("Retry-After", "30")])
                == .result(.retry(after: .seconds(30), reason: "FCM: QUOTA_EXCEEDED (429)")))
        #expect(
            fcm(500, fcmError("INTERNAL", code: "INTERNAL"), headers: [("Retry-After", "1e9")])
                == .result(.retry(after: nil, reason: "FCM: INTERNAL (500)")))
        #expect(
            fcm(503, String(repeating: "x", count: 20_000), truncated: true)
                == .result(.retry(after: nil, reason: "FCM: no readable error (503)")))
    }

    @Test func fcmCodesNeverEchoFreeText() {
        #expect(fcm(400, fcmError("token abc is bad", code: "also bad")) == .result(.failed(reason: "FCM: no readable error (400)")))
        #expect(fcm(400, #"{"error":"flat string"}"#) == .result(.failed(reason: "FCM: no readable error (400)")))
        #expect(fcm(400, #"{"error":{"status":7}}"#) == .result(.failed(reason: "FCM: no readable error (400)")))
    }
}
