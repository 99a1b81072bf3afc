import Foundation
import Testing
import TidingsHTTPClient
import TidingsPush
import TidingsTestSupport

/// APNsClient against the mock APNs: HTTP/2 over TLS with a test CA, JWTs
/// verified with the key's public half, headers and sizes checked.
/// Serialized: each test runs a Python server, and the machine has two cores.
@Suite(.serialized) struct APNsClientTests {
    @Test func aBadgePushArrivesWithItsHeadersAndAVerifiedToken() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            let id = UUID()
            var push = badgePush(token: deviceToken(1), count: 7)
            push.id = id
            push.expiration = Date(timeIntervalSince1970: 1_900_000_000)

            let result = await client.send(push)
            let second = await client.send(badgePush(token: deviceToken(2)))

            #expect(result == .delivered(providerID: id.uuidString))
            guard case .delivered(let otherID) = second else {
                Issue.record("second push: \(second)")
                return
            }
            #expect(UUID(uuidString: otherID) != nil)
            let requests = try await fixture.mock.stats().apns
            try #require(requests.count == 2)
            let first = requests[0]
            #expect(first.status == 200)
            #expect(first.http_version == "2")
            #expect(first.token == deviceToken(1))
            #expect(first.topic == "com.example.tidings")
            #expect(first.push_type == "alert")
            #expect(first.priority == "5")
            #expect(first.collapse_id == "badge")
            #expect(first.expiration == "1900000000")
            #expect(first.apns_id == id.uuidString)
            #expect(first.payload == #"{"aps":{"badge":7}}"#)
            // One provider token for both pushes, with the right header and claims.
            #expect(requests[1].jwt == first.jwt)
            let jwt = try #require(first.jwt)
            let parts = try #require(jwtParts(jwt))
            #expect(parts.header as NSDictionary == ["alg": "ES256", "kid": "KEY7890ABC"] as NSDictionary)
            #expect(parts.claims["iss"] as? String == "TEAM123456")
            let iat = try #require(parts.claims["iat"] as? Int)
            #expect(abs(Double(iat) - Date().timeIntervalSince1970) < 60)
        }
    }

    @Test func aBackgroundPushCarriesItsTypeAndPriority() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            let push = APNsPush(
                token: deviceToken(3), pushType: .background, priority: .powerConsiderate,
                payload: Array(#"{"aps":{"content-available":1},"watch":"w1"}"#.utf8)
            )

            let result = await client.send(push)

            #expect(result.outcome == "delivered")
            let request = try #require(try await fixture.mock.stats().apns.first)
            #expect(request.push_type == "background" && request.priority == "5")
            #expect(request.collapse_id == nil && request.expiration == nil)
        }
    }

    @Test func concurrentPushesShareOneConnection() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            // Every answer waits, so the pushes can only finish together
            // if they are in flight together.
            try await fixture.mock.setDelay(1)
            let count = 50
            let started = ContinuousClock.now

            let results = await withTaskGroup(of: PushResult.self) { group in
                for index in 0..<count {
                    group.addTask { await client.send(badgePush(token: deviceToken(100 + index))) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }

            let elapsed = ContinuousClock.now - started
            #expect(results.allSatisfy { $0.outcome == "delivered" })
            let stats = try await fixture.mock.stats()
            #expect(stats.apns.count == count)
            #expect(stats.connections.count == 1)
            let connection = try #require(stats.connections.values.first)
            #expect(connection.streams == count)
            #expect(connection.http_version == "2")
            #expect(connection.max_in_flight >= count / 2)
            #expect(Set(stats.apns.map(\.jwt)).count == 1)
            // One at a time would take 50 s.
            #expect(elapsed < .seconds(25))
        }
    }

    @Test func deadTokensMakeTheDeviceGone() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            try await fixture.mock.script(token: deviceToken(10), [["status": 410, "reason": "Unregistered"]])
            try await fixture.mock.script(token: deviceToken(11), [["status": 400, "reason": "DeviceTokenNotForTopic"]])
            // The mock itself refuses tokens that are not 32 bytes.
            let shortToken = String(deviceToken(12).dropFirst(2))

            let unregistered = await client.send(badgePush(token: deviceToken(10)))
            let notForTopic = await client.send(badgePush(token: deviceToken(11)))
            let badToken = await client.send(badgePush(token: shortToken))
            let notHex = await client.send(badgePush(token: "not-a-token"))

            #expect(unregistered == .deviceGone(reason: "APNs: Unregistered (410)"))
            #expect(notForTopic == .deviceGone(reason: "APNs: DeviceTokenNotForTopic (400)"))
            #expect(badToken == .deviceGone(reason: "APNs: BadDeviceToken (400)"))
            #expect(notHex.outcome == "device_gone")
            // The last one never left the process.
            #expect(try await fixture.mock.stats().apns.count == 3)
        }
    }

    @Test func busyAndFailingAnswersAreRetriedLaterOrFailed() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            try await fixture.mock.script(token: deviceToken(20), [["status": 429, "reason": "TooManyRequests", "retry_after": "120"]])
            try await fixture.mock.script(token: deviceToken(21), [["status": 500, "reason": "InternalServerError"]])
            try await fixture.mock.script(
                token: deviceToken(22), [["status": 503, "reason": "ServiceUnavailable", "retry_after": "99999999999999999999999"]])
            try await fixture.mock.script(token: deviceToken(23), [["status": 413, "reason": "PayloadTooLarge"]])
            try await fixture.mock.script(token: deviceToken(24), [["status": 400, "reason": "BadCollapseId"]])

            #expect(
                await client.send(badgePush(token: deviceToken(20))) == .retry(after: .seconds(120), reason: "APNs: TooManyRequests (429)"))
            #expect(await client.send(badgePush(token: deviceToken(21))) == .retry(after: nil, reason: "APNs: InternalServerError (500)"))
            #expect(
                await client.send(badgePush(token: deviceToken(22)))
                    == .retry(after: .seconds(3600), reason: "APNs: ServiceUnavailable (503)"))
            #expect(await client.send(badgePush(token: deviceToken(23))) == .failed(reason: "APNs: PayloadTooLarge (413)"))
            #expect(await client.send(badgePush(token: deviceToken(24))) == .failed(reason: "APNs: BadCollapseId (400)"))
        }
    }

    @Test func hostileAnswersAreReadSafely() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            // 2 MiB of body on an error, JSON that is not JSON, a reason
            // that is prose, a 200 with a header that is not an id.
            try await fixture.mock.script(token: deviceToken(30), [["status": 500, "body_size": 2 << 20]])
            try await fixture.mock.script(token: deviceToken(31), [["status": 400, "body": "{\"reason\": \"BadDevice"]])
            try await fixture.mock.script(token: deviceToken(32), [["status": 400, "body": "{\"reason\": \"secret-key abc 123\"}"]])
            try await fixture.mock.script(token: deviceToken(33), [["status": 200, "apns_id": String(repeating: "z", count: 500)]])
            try await fixture.mock.script(token: deviceToken(34), [["status": 410, "body": "[1,2,3]"]])

            #expect(await client.send(badgePush(token: deviceToken(30))) == .retry(after: nil, reason: "APNs: no readable reason (500)"))
            #expect(await client.send(badgePush(token: deviceToken(31))) == .failed(reason: "APNs: no readable reason (400)"))
            #expect(await client.send(badgePush(token: deviceToken(32))) == .failed(reason: "APNs: no readable reason (400)"))
            #expect(await client.send(badgePush(token: deviceToken(33))) == .delivered(providerID: ""))
            #expect(await client.send(badgePush(token: deviceToken(34))) == .deviceGone(reason: "APNs: no readable reason (410)"))
        }
    }

    @Test func anExpiredProviderTokenIsReplacedAndThePushSentOnce() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            #expect(await client.send(badgePush(token: deviceToken(40))).outcome == "delivered")
            // APNs now considers that token expired.
            try await fixture.mock.script(token: deviceToken(41), [["status": 403, "reason": "ExpiredProviderToken", "expire_jwt": true]])

            let result = await client.send(badgePush(token: deviceToken(41)))
            let after = await client.send(badgePush(token: deviceToken(42)))

            #expect(result.outcome == "delivered")
            #expect(after.outcome == "delivered")
            let requests = try await fixture.mock.stats().apns
            #expect(requests.map(\.token) == [deviceToken(40), deviceToken(41), deviceToken(41), deviceToken(42)])
            #expect(requests.map(\.status) == [200, 403, 200, 200])
            #expect(requests[1].jwt == requests[0].jwt)
            #expect(requests[2].jwt != requests[1].jwt)
            #expect(requests[3].jwt == requests[2].jwt)
        }
    }

    @Test func aProviderTokenRejectedTwiceFailsWithoutAThirdTry() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            try await fixture.mock.script(
                token: deviceToken(50),
                [
                    ["status": 403, "reason": "InvalidProviderToken"], ["status": 403, "reason": "InvalidProviderToken"],
                ])
            try await fixture.mock.script(token: deviceToken(51), [["status": 403, "reason": "InvalidProviderToken"]])

            let result = await client.send(badgePush(token: deviceToken(50)))
            // The fresh token was itself a forced refresh: APNs rejecting it
            // again within 20 minutes does not make a third one.
            let next = await client.send(badgePush(token: deviceToken(51)))

            #expect(result == .failed(reason: "APNs: InvalidProviderToken (403): check the push app's key id, team id and key"))
            #expect(next.outcome == "failed")
            let requests = try await fixture.mock.stats().apns
            #expect(requests.count == 3)
            #expect(Set(requests.map(\.jwt)).count == 2)
        }
    }

    @Test func oversizedPayloadsAreRefusedBeforeSending() async throws {
        try await withMockPush { fixture in
            let client = try fixture.apnsClient()
            let padding = String(repeating: "a", count: APNsPush.maximumPayloadSize)
            var push = badgePush(token: deviceToken(60))
            push.payload = Array(#"{"aps":{"badge":1},"x":"\#(padding)"}"#.utf8)

            let result = await client.send(push)

            #expect(
                result == .failed(reason: "APNs: PayloadTooLarge: the payload is \(push.payload.count) bytes; APNs accepts at most 4096"))
            #expect(try await fixture.mock.stats().apns.isEmpty)
        }
    }

    @Test func certificatesAreVerified() async throws {
        let mock = try await MockPushServer.start()
        defer { mock.stop() }
        let fixture = try PushFixture(mock: mock, trustingMockCA: false)
        defer { fixture.stop() }
        let client = try fixture.apnsClient()

        let result = await client.send(badgePush(token: deviceToken(70)))

        guard case .retry(nil, let reason) = result else {
            Issue.record("expected a retry, got \(result)")
            return
        }
        #expect(reason.hasPrefix("APNs: tls_failure"))
        #expect(try await mock.stats().apns.isEmpty)
    }
}
