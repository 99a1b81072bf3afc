import Foundation
import Testing
import TidingsPush

/// What the clients send, and what they refuse before sending.
@Suite struct PushRequestTests {
    @Test func apnsHeadersCarryEveryFieldOfThePush() {
        let id = UUID(uuidString: "6BFA0E2C-9C2B-4D5E-8F00-0123456789AB")!
        let push = APNsPush(
            token: deviceToken(1), pushType: .alert, priority: .immediate, collapseID: "user-7",
            expiration: Date(timeIntervalSince1970: 1_790_003_600), id: id, payload: Array(#"{"aps":{}}"#.utf8)
        )

        let headers = push.headers(topic: "com.example.app", providerToken: "JWT")

        #expect(
            headers.map(\.name) == [
                "authorization", "apns-topic", "apns-push-type", "apns-priority", "content-type",
                "apns-expiration", "apns-collapse-id", "apns-id",
            ])
        #expect(
            headers.map(\.value) == [
                "bearer JWT", "com.example.app", "alert", "10", "application/json",
                "1790003600", "user-7", "6BFA0E2C-9C2B-4D5E-8F00-0123456789AB",
            ])
        var immediate = push
        immediate.expiration = Date(timeIntervalSince1970: 0)
        immediate.collapseID = nil
        immediate.id = nil
        #expect(
            immediate.headers(topic: "t", providerToken: "J").filter { $0.name.hasPrefix("apns-") }.map(\.value) == [
                "t", "alert", "10", "0",
            ])
    }

    @Test func apnsPushesAPNsWouldRefuseNeverLeave() {
        let fine = badgePush(token: deviceToken(1))
        #expect(fine.refusal() == nil)

        var atLimit = fine
        atLimit.payload = Array(repeating: UInt8(ascii: " "), count: 4096)
        #expect(atLimit.refusal() == nil)
        var over = fine
        over.payload = Array(repeating: UInt8(ascii: " "), count: 4097)
        #expect(over.refusal() == .failed(reason: "APNs: PayloadTooLarge: the payload is 4097 bytes; APNs accepts at most 4096"))
        var empty = fine
        empty.payload = []
        #expect(empty.refusal() == .failed(reason: "APNs: PayloadEmpty: the payload is empty"))

        var longCollapse = fine
        longCollapse.collapseID = String(repeating: "é", count: 33)
        #expect(longCollapse.refusal() == .failed(reason: "APNs: BadCollapseId: the collapse id is 66 bytes; APNs accepts at most 64"))
        var injected = fine
        injected.collapseID = "a\r\napns-topic: other"
        #expect(injected.refusal() == .failed(reason: "APNs: BadCollapseId: the collapse id contains control characters"))

        let background = APNsPush(token: deviceToken(1), pushType: .background, priority: .immediate, payload: fine.payload)
        #expect(background.refusal() == .failed(reason: "APNs: BadPriority: background pushes must have priority 5"))

        for token in ["", "xyz", deviceToken(1) + "/../x", String(repeating: "a", count: 402)] {
            var bad = fine
            bad.token = token
            #expect(bad.refusal() == .deviceGone(reason: "APNs: BadDeviceToken: the device token is empty, too long or not hexadecimal"))
        }
    }

    @Test func fcmBodiesAreWrittenByTheJSONWriterWithSortedData() {
        let push = FCMPush(
            token: "tok\"en", data: ["z": "last", "a": "first \"quoted\"\n", "watch_id": "w-1"], priority: .high, collapseKey: "badge"
        )

        #expect(
            String(decoding: push.messageBody(), as: UTF8.self)
                == #"{"message":{"android":{"collapse_key":"badge","priority":"high"},"data":{"a":"first \"quoted\"\n","watch_id":"w-1","z":"last"},"token":"tok\"en"}}"#
        )
        let plain = FCMPush(token: "t", data: [:], priority: .normal)
        #expect(
            String(decoding: plain.messageBody(), as: UTF8.self) == #"{"message":{"android":{"priority":"normal"},"data":{},"token":"t"}}"#)
    }

    @Test func fcmPushesFCMWouldRefuseNeverLeave() {
        #expect(FCMPush(token: "t", data: ["badge": "1"], priority: .normal).refusal() == nil)
        for key in ["from", "Notification", "message_type", "google.c.a", "GCM.x"] {
            #expect(
                FCMPush(token: "t", data: [key: "1"], priority: .normal).refusal()
                    == .failed(reason: "a data key is reserved by FCM (from, notification, message_type, google*, gcm*)"))
        }
        let big = FCMPush(token: "t", data: ["k": String(repeating: "v", count: 4096)], priority: .normal)
        #expect(big.refusal() == .failed(reason: "the data is 4097 bytes; FCM accepts at most 4096"))
        for token in ["", "with space", String(repeating: "t", count: 4097)] {
            #expect(
                FCMPush(token: token, data: [:], priority: .normal).refusal()
                    == .deviceGone(reason: "FCM: INVALID_ARGUMENT: the registration token is empty, too long or not plain ASCII"))
        }
    }
}
