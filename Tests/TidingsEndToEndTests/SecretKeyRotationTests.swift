import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// `tidings rotate-secret-key`: values sealed under key A, the service
/// restarted with B as the key and A as a previous one, the rotation run
/// (while it serves), then B alone is enough, and deliveries still verify.
@Suite struct SecretKeyRotationTests {
    static let keyA = try! SecretKey(hex: TestSecretKeys.a)
    static let keyB = try! SecretKey(hex: TestSecretKeys.b)

    @Test(.timeLimit(.minutes(2)))
    func rotateFromKeyAToKeyB() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let underA = try DispatcherHarness { $0.pollConcurrency = 0 }
        let user = try await underA.createUser()
        let webhook = try await underA.createWebhook(key: user.key, url: receiver.url("/hook"))
        // A rotated webhook secret too, so the previous secret is sealed as well.
        let rotated = try await underA.send("POST", "/v1/webhooks/\(webhook.id.uuidString.lowercased())/rotate-secret", token: user.key)
        let currentSecret = try #require(try rotated.object()["secret"] as? String)
        let watchBody: [String: Any] = [
            "url": "https://93.184.215.14/rotation", "headers": ["Authorization": "Bearer rotate-me-4242"],
            "version_url": "https://93.184.215.14/version", "version_pointer": "/v",
            "version_headers": ["X-Version-Token": "version-rotate-7171"],
        ]
        let watch = try await underA.send("POST", "/v1/watches", token: user.key, json: watchBody)
        #expect(watch.status == 201, "\(watch.text)")
        let watchID = try #require(try watch.object()["id"] as? String)
        let pushApp = try await underA.send(
            "POST", "/v1/push-apps", token: DispatcherHarness.adminToken,
            json: [
                "platform": "apns", "app_id": "com.example.rotation", "environment": "sandbox",
                "team_id": "TEAM123456", "key_id": "KEY7890ABC", "private_key": TestPushKeys.p256.pem,
            ])
        #expect(pushApp.status == 201, "\(pushApp.text)")
        let databaseURL = try #require(underA.application.configuration.databaseURL)
        #expect(try Self.keyIDs(underA.database) == [Self.keyA.id])
        underA.stop()

        // Restart with B current and A previous, then rotate while it serves.
        let both = try DispatcherHarness(databaseURL: databaseURL) {
            $0.secretKey = Self.keyB
            $0.previousSecretKeys = [Self.keyA]
            $0.pollConcurrency = 0
        }
        let rotation = both.application.configuration
        let logger = Logger(label: "rotate", logLevel: .warning, sink: CapturingLogSink())
        let result = try Application.rotateSecretKey(configuration: rotation, logger: logger)
        #expect(
            result.webhooks == 1 && result.targets == 1 && result.keys == 1 && result.pushApps == 1 && result.mergedTargets == 0,
            "\(result)")
        #expect(try Self.keyIDs(both.database) == [Self.keyB.id])
        // Nothing left: a second run changes nothing.
        #expect(try Application.rotateSecretKey(configuration: rotation, logger: logger).total == 0)
        both.stop()

        // B alone: starts (the stored fingerprint key opens), signs, fetches.
        let underB = try DispatcherHarness(databaseURL: databaseURL) {
            $0.secretKey = Self.keyB
            $0.pollConcurrency = 0
        }
        defer { underB.stop() }
        try underB.enqueue(user: user.id)
        #expect(try await eventually { receiver.requests("/hook").count == 1 })
        let received = try #require(receiver.requests("/hook").first)
        #expect(received.signature.split(separator: " ").count == 2, "current and previous secret both sign")
        let results = try TestSupport.verifySignatures([(currentSecret, received), (webhook.secret, received)])
        for result in results {
            #expect(result["standardwebhooks"] == "ok" && result["svix"] == "ok")
        }
        let target = try underB.database.query(
            """
            SELECT t.headers::text AS headers, t.version_headers::text AS version_headers, t.secrets_sealed
            FROM targets t JOIN watches w ON w.target_id = t.id
            WHERE w.id = \(watchID)::uuid
            """
        ).single()
        let stored = try JSONSerialization.jsonObject(with: Data(try target.decode("headers", as: String.self).utf8)) as? [String: String]
        let opened = try underB.application.secrets.openHeaders(try #require(stored), sealed: try target.decode("secrets_sealed"))
        #expect(opened == ["authorization": "Bearer rotate-me-4242"])
        let storedVersion =
            try JSONSerialization.jsonObject(
                with: Data(try target.decode("version_headers", as: String.self).utf8)
            ) as? [String: String]
        let openedVersion = try underB.application.secrets.openHeaders(
            try #require(storedVersion), sealed: try target.decode("secrets_sealed"), in: .versionHeaders
        )
        #expect(openedVersion == ["x-version-token": "version-rotate-7171"])
        // The push app's key opens under B alone, as the one registered.
        let apps = PushAppStore(database: underB.database, secrets: underB.application.secrets)
        let appIDText = try #require(try pushApp.object()["id"] as? String)
        let appID = try #require(UUID(uuidString: appIDText))
        guard case .apns(_, _, _, let privateKey)? = try apps.credentials(of: appID)?.1 else {
            Issue.record("the push app's credentials do not open")
            return
        }
        #expect(privateKey == TestPushKeys.p256.pem)
        // The fingerprint did not change with the key: an equal watch still shares the target.
        let again = try await underB.send("POST", "/v1/watches", token: user.key, json: watchBody)
        let againID = try #require(try again.object()["id"] as? String)
        let targets = try underB.database.query(
            """
            SELECT count(DISTINCT target_id) AS n FROM watches WHERE id IN (\(watchID)::uuid, \(againID)::uuid)
            """
        ).single().decode("n", as: Int.self)
        #expect(targets == 1)
    }

    /// The key ids found in every sealed value of the database.
    static func keyIDs(_ database: PostgresClient) throws -> Set<String> {
        let rows = try database.query(
            """
            SELECT split_part(v, ':', 3) AS id FROM (
                SELECT secret AS v FROM webhooks
                UNION ALL SELECT previous_secret FROM webhooks WHERE previous_secret IS NOT NULL
                UNION ALL SELECT h.value FROM targets, jsonb_each_text(targets.headers) AS h
                UNION ALL SELECT h.value FROM targets, jsonb_each_text(targets.version_headers) AS h
                UNION ALL SELECT sealed FROM sealed_keys
                UNION ALL SELECT private_key FROM push_apps
            ) AS sealed_values
            """)
        return Set(try rows.map { try $0.decode("id", as: String.self) })
    }
}
