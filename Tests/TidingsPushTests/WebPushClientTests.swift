import Foundation
import Testing
import TidingsCrypto
import TidingsHTTPClient
import TidingsPush
import TidingsSynchronization
import TidingsTestSupport

/// WebPushClient against the mock push service: real TLS (test CA), real
/// libcurl, the VAPID JWT verified and every message decrypted by the mock
/// with the subscription's private key.
@Suite(.serialized) struct WebPushClientTests {
    static let vapidKey = try! P256KeyPair.generate()

    static func push(
        _ subscription: MockPushServer.WebPushSubscription, payload: String = #"{"kind":"badge","badge":3}"#,
        urgency: WebPush.Urgency = .low, topic: String? = "tidings-badge", ttl: Int = 86_400
    ) -> WebPush {
        WebPush(
            endpoint: subscription.endpoint,
            userAgentPublicKey: Base64.decode(subscription.p256dh)!,
            authSecret: Base64.decode(subscription.auth)!,
            payload: Array(payload.utf8),
            timeToLive: ttl,
            urgency: urgency,
            topic: topic
        )
    }

    @Test func aMessageArrivesEncryptedWithItsHeadersAndAVerifiedToken() async throws {
        try await withMockPush { fixture in
            let (client, http) = try fixture.webPushClient(key: Self.vapidKey)
            defer { http.stop() }
            let subscription = try await fixture.mock.createWebPushSubscription()

            let result = await client.send(Self.push(subscription))
            guard case .delivered(let location) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(location.hasPrefix(fixture.mock.baseURL + "/m/"))
            let request = try #require(try await fixture.mock.stats().webPush.first)
            #expect(request.status == 201, "\(request.reason ?? "")")
            #expect(request.payload == #"{"kind":"badge","badge":3}"#)
            #expect(request.ttl == "86400" && request.urgency == "low" && request.topic == "tidings-badge")
            #expect(request.content_encoding == "aes128gcm" && request.content_type == "application/octet-stream")
            #expect(request.accept_encoding == nil, "answers are only logged: nothing to decode")
            #expect(request.http_version == "2")
            // aud is the endpoint's origin, exp about 12 h ahead, the key the deployment's.
            let claims = try #require(request.claims)
            #expect(claims.aud == fixture.mock.baseURL)
            #expect(claims.sub == "mailto:ops@example.com")
            let ahead = Double(claims.exp) - Date().timeIntervalSince1970
            #expect(ahead > 11 * 3600 && ahead <= 12 * 3600 + 5, "exp \(ahead) s ahead")
            #expect(request.vapid_key == Self.vapidKey.publicKeyBase64URL)
            let jwt = try #require(request.jwt)
            let parts = try #require(jwtParts(jwt))
            #expect(parts.header as NSDictionary == ["typ": "JWT", "alg": "ES256"] as NSDictionary)
        }
    }

    @Test func oneTokenServesEveryPushToAnOrigin() async throws {
        try await withMockPush { fixture in
            let clock = FakeClock(Date())
            let (client, http) = try fixture.webPushClient(key: Self.vapidKey, now: clock.reading)
            defer { http.stop() }
            let first = try await fixture.mock.createWebPushSubscription()
            let second = try await fixture.mock.createWebPushSubscription()
            for subscription in [first, second, first] {
                #expect(await client.send(Self.push(subscription, urgency: .normal, topic: nil)).outcome == "delivered")
            }
            #expect(client.tokens.cachedAudiences == 1)
            let tokens = try await fixture.mock.stats().webPush.map(\.jwt)
            #expect(tokens.count == 3 && Set(tokens).count == 1, "one JWT for one origin")
            // Six hours on, well before its expiry, it is replaced.
            clock.advance(.seconds(6 * 3600 + 1))
            #expect(await client.send(Self.push(first)).outcome == "delivered")
            let later = try await fixture.mock.stats().webPush.map(\.jwt)
            #expect(later.count == 4 && later[3] != later[0])
        }
    }

    @Test func answersBecomeResultsFromTheirStatusAlone() async throws {
        try await withMockPush { fixture in
            let (client, http) = try fixture.webPushClient(key: Self.vapidKey)
            defer { http.stop() }
            let subscription = try await fixture.mock.createWebPushSubscription()
            try await fixture.mock.script(
                subscription: subscription,
                [
                    ["status": 410, "body": "<html>gone: secret-token-abc</html>"],
                    ["status": 404],
                    ["status": 429, "retry_after": "120"],
                    ["status": 503],
                    ["status": 413],
                    ["status": 400, "body": "bad thing secret-token-abc"],
                    ["status": 403],
                ])
            var results: [PushResult] = []
            for _ in 0..<7 { results.append(await client.send(Self.push(subscription))) }
            #expect(results.map(\.outcome) == ["device_gone", "device_gone", "retry", "retry", "failed", "failed", "failed"])
            #expect(results[2] == .retry(after: .seconds(120), reason: "Web Push: the push service answered 429"))
            #expect(results.allSatisfy { !$0.detail.contains("secret-token") && !$0.detail.contains("html") })
            // A refused token is not used again.
            #expect(await client.send(Self.push(subscription)).outcome == "delivered")
            let tokens = try await fixture.mock.stats().webPush.map(\.jwt)
            #expect(tokens[7] != tokens[6], "a new JWT after the 403")
            #expect(Set(tokens.prefix(7)).count == 1)
        }
    }

    @Test func anUnknownSubscriptionIsGoneAndAnOversizedPayloadIsNotSent() async throws {
        try await withMockPush { fixture in
            let (client, http) = try fixture.webPushClient(key: Self.vapidKey)
            defer { http.stop() }
            let subscription = try await fixture.mock.createWebPushSubscription()
            var unknown = Self.push(subscription)
            unknown.endpoint = fixture.mock.baseURL + "/wp/no-such-subscription"
            #expect(await client.send(unknown).outcome == "device_gone")

            let large = Self.push(subscription, payload: String(repeating: "x", count: WebPushEncryption.maximumPlaintextByteCount + 1))
            #expect(await client.send(large).outcome == "failed")
            let badTopic = Self.push(subscription, topic: "not a topic!")
            #expect(await client.send(badTopic).outcome == "failed")
            // The largest payload that fits goes out and decrypts.
            let largest = String(repeating: "y", count: WebPushEncryption.maximumPlaintextByteCount)
            #expect(await client.send(Self.push(subscription, payload: largest)).outcome == "delivered")
            let received = try await fixture.mock.stats().webPush
            #expect(received.count == 2, "nothing sent for the refused ones")
            #expect(received.last?.payload == largest && received.last?.payload_size == 4096)
        }
    }

    @Test func theSSRFGuardStandsBeforeEveryEndpoint() async throws {
        try await withMockPush { fixture in
            let (client, http) = try fixture.webPushClient(key: Self.vapidKey, allowPrivateTargets: false)
            defer { http.stop() }
            let subscription = try await fixture.mock.createWebPushSubscription()
            let result = await client.send(Self.push(subscription))
            #expect(result.outcome == "failed", "\(result)")
            #expect(try await fixture.mock.stats().webPush.isEmpty, "the loopback mock was never connected to")
        }
    }

    @Test func pushesCarryTheirUrgencyAndTopic() {
        let subscription = MockPushServer.WebPushSubscription(id: "x", endpoint: "https://push.example:8443/wp/x", p256dh: "", auth: "")
        var push = Self.push(subscription, urgency: .high, topic: nil, ttl: 60)
        #expect(push.audience == "https://push.example:8443")
        let headers = Dictionary(uniqueKeysWithValues: push.headers(authorization: "vapid t=a, k=b").map { ($0.name, $0.value) })
        #expect(
            headers == [
                "authorization": "vapid t=a, k=b", "content-encoding": "aes128gcm", "content-type": "application/octet-stream",
                "ttl": "60", "urgency": "high",
            ])
        push.endpoint = "https://push.example/wp/x"
        #expect(push.audience == "https://push.example")
        push.endpoint = "http://push.example/wp/x"
        #expect(push.audience == nil)
    }
}
