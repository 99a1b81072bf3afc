import Foundation
import Testing
import TidingsHTTPClient
import TidingsPush
import TidingsTestSupport

/// FCMClient against the mock FCM and its OAuth token endpoint: the RS256
/// assertion verified with the service account's public key, the access
/// token checked on every send. Serialized, as APNsClientTests.
@Suite(.serialized) struct FCMClientTests {
    private func dataPush(_ token: String, priority: FCMPush.Priority = .normal) -> FCMPush {
        FCMPush(token: token, data: ["badge": "4", "type": "badge.updated"], priority: priority, collapseKey: "badge")
    }

    @Test func aDataMessageArrivesWithAnAccessTokenFromTheGrant() async throws {
        try await withMockPush { fixture in
            let client = try fixture.fcmClient()

            let first = await client.send(dataPush("device-a:APA91b-first"))
            let second = await client.send(dataPush("device-b:APA91b-second", priority: .high))

            guard case .delivered(let name) = first else {
                Issue.record("first push: \(first)")
                return
            }
            #expect(name.hasPrefix("projects/tidings-test/messages/0:"))
            #expect(second.outcome == "delivered")
            let stats = try await fixture.mock.stats()
            // One grant for both pushes.
            try #require(stats.token_requests.count == 1)
            let grant = stats.token_requests[0]
            #expect(grant.status == 200)
            #expect(grant.content_type == "application/x-www-form-urlencoded")
            #expect(grant.form_keys == ["assertion", "grant_type"])
            let claims = try #require(grant.claims)
            #expect(claims.iss == "push@tidings-test.iam.gserviceaccount.com")
            #expect(claims.scope == "https://www.googleapis.com/auth/firebase.messaging")
            #expect(claims.aud == fixture.mock.startup.token_uri)
            #expect(claims.exp - claims.iat == 3600)
            let sends = stats.fcm
            try #require(sends.count == 2)
            #expect(sends.allSatisfy { $0.status == 200 && $0.access_token == grant.access_token && $0.http_version == "2" })
            #expect(sends[0].path == "/v1/projects/tidings-test/messages:send")
            #expect(
                sends[0].body
                    == #"{"message":{"android":{"collapse_key":"badge","priority":"normal"},"data":{"badge":"4","type":"badge.updated"},"token":"device-a:APA91b-first"}}"#
            )
            #expect(sends[1].body?.contains(#""priority":"high""#) == true)
        }
    }

    @Test func concurrentSendsWaitForOneGrantAndShareOneConnection() async throws {
        try await withMockPush { fixture in
            let client = try fixture.fcmClient()
            try await fixture.mock.setDelay(1)
            let count = 30

            let results = await withTaskGroup(of: PushResult.self) { group in
                for index in 0..<count {
                    group.addTask { await client.send(dataPush("device-\(index)")) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }

            #expect(results.allSatisfy { $0.outcome == "delivered" })
            let stats = try await fixture.mock.stats()
            #expect(stats.token_requests.count == 1)
            #expect(stats.fcm.count == count)
            // The token endpoint is on the same host here, so even the grant shares the connection.
            #expect(stats.connections.count == 1)
            #expect(stats.max_in_flight >= count / 2)
        }
    }

    @Test func deadTokensMakeTheDeviceGoneAndOtherErrorsDoNot() async throws {
        try await withMockPush { fixture in
            let client = try fixture.fcmClient()
            try await fixture.mock.script(
                token: "gone", [["status": 404, "fcm_error": ["status": "NOT_FOUND", "errorCode": "UNREGISTERED"]]])
            try await fixture.mock.script(
                token: "malformed",
                [
                    [
                        "status": 400,
                        "fcm_error": [
                            "status": "INVALID_ARGUMENT", "errorCode": "INVALID_ARGUMENT", "field": "message.token",
                            "message": "The registration token is not a valid FCM registration token",
                        ],
                    ]
                ])
            try await fixture.mock.script(
                token: "bad-data",
                [
                    [
                        "status": 400,
                        "fcm_error": ["status": "INVALID_ARGUMENT", "errorCode": "INVALID_ARGUMENT", "field": "message.data"],
                    ]
                ])
            try await fixture.mock.script(
                token: "other-sender", [["status": 403, "fcm_error": ["status": "PERMISSION_DENIED", "errorCode": "SENDER_ID_MISMATCH"]]])
            try await fixture.mock.script(
                token: "busy",
                [["status": 429, "retry_after": "30", "fcm_error": ["status": "RESOURCE_EXHAUSTED", "errorCode": "QUOTA_EXCEEDED"]]])
            try await fixture.mock.script(
                token: "down", [["status": 503, "fcm_error": ["status": "UNAVAILABLE", "errorCode": "UNAVAILABLE"]]])

            #expect(await client.send(dataPush("gone")) == .deviceGone(reason: "FCM: UNREGISTERED (404)"))
            #expect(
                await client.send(dataPush("malformed"))
                    == .deviceGone(reason: "FCM: INVALID_ARGUMENT (400): the registration token is not valid"))
            #expect(await client.send(dataPush("bad-data")) == .failed(reason: "FCM: INVALID_ARGUMENT (400)"))
            #expect(await client.send(dataPush("other-sender")) == .failed(reason: "FCM: SENDER_ID_MISMATCH (403)"))
            #expect(await client.send(dataPush("busy")) == .retry(after: .seconds(30), reason: "FCM: QUOTA_EXCEEDED (429)"))
            #expect(await client.send(dataPush("down")) == .retry(after: nil, reason: "FCM: UNAVAILABLE (503)"))
        }
    }

    @Test func a401FetchesANewTokenAndSendsOnce() async throws {
        try await withMockPush { fixture in
            let client = try fixture.fcmClient()
            try await fixture.mock.script(
                token: "revoked", [["status": 401, "revoke_token": true, "fcm_error": ["status": "UNAUTHENTICATED"]]])

            let result = await client.send(dataPush("revoked"))
            let after = await client.send(dataPush("later"))

            #expect(result.outcome == "delivered")
            #expect(after.outcome == "delivered")
            let stats = try await fixture.mock.stats()
            #expect(stats.token_requests.count == 2)
            #expect(stats.fcm.map(\.status) == [401, 200, 200])
            #expect(stats.fcm[0].access_token != stats.fcm[1].access_token)
            #expect(stats.fcm[2].access_token == stats.fcm[1].access_token)
        }
    }

    @Test func aTokenEndpointThatRefusesOrBabblesFailsThePushSafely() async throws {
        try await withMockPush { fixture in
            try await fixture.mock.scriptTokenEndpoint([
                ["status": 200, "body_size": 1 << 20],
                ["status": 200, "body": #"{"access_token": "abc", "token_type": "Bearer", "expires_in": "#],
                ["status": 200, "body": #"{"access_token": "has space", "token_type": "Bearer", "expires_in": 3600}"#],
                ["status": 503, "body": #"{"error": "temporarily_unavailable"}"#],
                ["status": 400, "body": #"{"error": "invalid_grant", "error_description": "Invalid JWT Signature."}"#],
            ])
            let clock = FakeClock(Date())
            let client = try fixture.fcmClient(now: clock.reading)

            // Each failure holds for a cool-down; the fake clock skips it.
            var results: [PushResult] = []
            for _ in 0..<5 {
                results.append(await client.send(dataPush("device")))
                clock.advance(.seconds(61))
            }

            #expect(
                results[0]
                    == .retry(after: nil, reason: "FCM: the token endpoint's answer is not a JSON object with access_token and token_type"))
            #expect(results[1] == results[0])
            #expect(
                results[2]
                    == .retry(
                        after: nil,
                        reason: "FCM: the token endpoint granted an access token that is empty, longer than 4096 bytes or not plain ASCII"))
            #expect(results[3] == .retry(after: nil, reason: "FCM: the token endpoint answered temporarily_unavailable (503)"))
            #expect(results[4] == .failed(reason: "FCM: the token endpoint refused the service account: invalid_grant (400)"))
            let stats = try await fixture.mock.stats()
            #expect(stats.fcm.isEmpty)
            #expect(stats.token_requests.count == 5)
        }
    }

    @Test func anAbsurdLifetimeIsClampedAndTheTokenStillServes() async throws {
        try await withMockPush { fixture in
            try await fixture.mock.scriptTokenEndpoint([["status": 200, "expires_in": 1e30]])
            let client = try fixture.fcmClient()

            #expect(await client.send(dataPush("device")).outcome == "delivered")
            #expect(try await fixture.mock.stats().fcm.map(\.status) == [200])
        }
    }

    @Test func aFailedGrantIsNotRetriedOnEveryPush() async throws {
        try await withMockPush { fixture in
            try await fixture.mock.scriptTokenEndpoint([["status": 503]])
            let client = try fixture.fcmClient()

            let first = await client.send(dataPush("device"))
            let second = await client.send(dataPush("device"))

            #expect(first.outcome == "retry")
            #expect(second == first)
            #expect(try await fixture.mock.stats().token_requests.count == 1)
        }
    }
}
