import Foundation
import Testing
import TidingsTestSupport

/// What receivers see on the wire, checked by the reference verifiers.
@Suite struct SigningTests {
    @Test func requestsFollowStandardWebhooksAndVerifyWithTheReferenceLibraries() async throws {
        let receiver = try WebhookReceiver()
        let harness = try DispatcherHarness()
        defer { harness.stop(); receiver.stop() }
        let user = try await harness.createUser()
        let webhook = try await harness.createWebhook(key: user.key, url: receiver.url("/hook"))

        let first = try harness.enqueue(user: user.id, data: #"{"text":"héllo \"quoted\" / slash","n":1}"#)
        let second = try harness.enqueue(user: user.id)
        #expect(try await eventually { receiver.requests("/hook").count == 2 })

        let received = receiver.requests("/hook")
        #expect(Set(received.map(\.webhookID)) == [first.uuidString.lowercased(), second.uuidString.lowercased()])
        for request in received {
            #expect(request.contentType == "application/json")
            #expect(request.userAgent.hasPrefix("Tidings/"))
            #expect(request.signature.hasPrefix("v1,"))
            #expect(!request.signature.contains(" "))
            let timestamp = try #require(Double(request.timestamp))
            #expect(abs(timestamp - Date().timeIntervalSince1970) < 60)
            let body = request.json
            #expect(Set(body.keys) == ["type", "timestamp", "data"])
            #expect(body["type"] as? String == "watch.changed")
            #expect((body["timestamp"] as? String)?.hasSuffix("Z") == true)
        }
        let withText = try #require(received.first { $0.webhookID == first.uuidString.lowercased() })
        #expect((withText.json["data"] as? [String: Any])?["text"] as? String == "héllo \"quoted\" / slash")

        // Rotation: both secrets sign until the previous one expires.
        let rotated = try await harness.send("POST", "/v1/webhooks/\(webhook.id.uuidString.lowercased())/rotate-secret", token: user.key)
        let newSecret = try #require(try rotated.object()["secret"] as? String)
        try harness.enqueue(user: user.id)
        #expect(try await eventually { receiver.requests("/hook").count == 3 })
        let afterRotation = try #require(receiver.requests("/hook").last)
        #expect(afterRotation.signature.split(separator: " ").count == 2)

        let results = try TestSupport.verifySignatures(
            received.map { (webhook.secret, $0) } + [(newSecret, afterRotation), (webhook.secret, afterRotation)]
        )
        #expect(results.count == 4)
        for result in results {
            #expect(result["standardwebhooks"] == "ok")
            #expect(result["svix"] == "ok")
        }
        // And a wrong secret is refused by both, so the check means something.
        let refused = try TestSupport.verifySignatures([(newSecret, received[0])])
        #expect(refused[0]["standardwebhooks"] != "ok")
        #expect(refused[0]["svix"] != "ok")
    }
}
