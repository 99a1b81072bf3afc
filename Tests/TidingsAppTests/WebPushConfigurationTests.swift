import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsHTTPClient
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// `TIDINGS_VAPID_PRIVATE_KEY` and `TIDINGS_VAPID_SUBJECT`: read and
/// checked at start (errors name the variable, never the key), and in
/// private-database mode a key generated into the data folder and reused.
@Suite struct WebPushConfigurationTests {
    static let key = try! P256KeyPair.generate()
    static let subject = "mailto:ops@example.com"

    @Test func theKeyReadsAsPEMOrAsTheRawScalar() throws {
        let pem = try Self.key.pkcs8PEM()
        let escaped = pem.replacingOccurrences(of: "\n", with: "\\n")
        for text in [pem, escaped] {
            let configuration = try Configuration(environment: ["TIDINGS_VAPID_PRIVATE_KEY": text, "TIDINGS_VAPID_SUBJECT": Self.subject])
            #expect(configuration.vapidPrivateKey?.publicKeyBytes == Self.key.publicKeyBytes)
            #expect(configuration.vapidSubject == Self.subject)
        }
        // The base64url scalar `web-push generate-vapid-keys` prints.
        let scalar = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        let configuration = try Configuration(environment: [
            "TIDINGS_VAPID_PRIVATE_KEY": scalar, "TIDINGS_VAPID_SUBJECT": "https://example.com/contact",
        ])
        #expect(configuration.vapidPrivateKey?.publicKeyBytes == (try P256KeyPair(base64URLPrivateKey: scalar)).publicKeyBytes)
        // Unset: off (with a database URL) or generated (without).
        #expect(try Configuration(environment: [:]).vapidPrivateKey == nil)
    }

    @Test func aBadKeyOrSubjectStopsStartUpNamingTheVariable() throws {
        let secretScalar = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" // zero: not a key
        let cases: [(environment: [String: String], variable: String)] = [
            (["TIDINGS_VAPID_PRIVATE_KEY": secretScalar, "TIDINGS_VAPID_SUBJECT": Self.subject], "TIDINGS_VAPID_PRIVATE_KEY"),
            (
                [
                    "TIDINGS_VAPID_PRIVATE_KEY": "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----",
                    "TIDINGS_VAPID_SUBJECT": Self.subject,
                ],
                "TIDINGS_VAPID_PRIVATE_KEY"
            ),
            (["TIDINGS_VAPID_PRIVATE_KEY": "not-a-key!", "TIDINGS_VAPID_SUBJECT": Self.subject], "TIDINGS_VAPID_PRIVATE_KEY"),
            (
                ["TIDINGS_VAPID_PRIVATE_KEY": TestPushKeysForVAPID.rsaPEM, "TIDINGS_VAPID_SUBJECT": Self.subject],
                "TIDINGS_VAPID_PRIVATE_KEY"
            ),
            (["TIDINGS_VAPID_PRIVATE_KEY": try Self.key.pkcs8PEM()], "TIDINGS_VAPID_SUBJECT"),
            (["TIDINGS_VAPID_PRIVATE_KEY": try Self.key.pkcs8PEM(), "TIDINGS_VAPID_SUBJECT": "ops@example.com"], "TIDINGS_VAPID_SUBJECT"),
            (["TIDINGS_VAPID_SUBJECT": "http://example.com"], "TIDINGS_VAPID_SUBJECT"),
            (["TIDINGS_VAPID_SUBJECT": "mailto:a b@example.com"], "TIDINGS_VAPID_SUBJECT"),
            (
                [
                    "TIDINGS_DATABASE_URL": "postgresql://u@db/t", "TIDINGS_SECRET_KEY": TestSecretKeys.a,
                    "TIDINGS_VAPID_SUBJECT": Self.subject,
                ],
                "TIDINGS_VAPID_SUBJECT"
            ),
        ]
        for (environment, variable) in cases {
            let error = try #require(throws: ConfigurationError.self, "\(environment)") { try Configuration(environment: environment) }
            #expect(error.variable == variable, "\(error)")
            #expect(!error.description.contains(secretScalar) && !error.description.contains("bm90IGEga2V5"))
        }
    }

    @Test func privateModeGeneratesTheKeyOnceAndServesItsPublicHalf() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tidings-vapid-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        var configuration = TestEnvironment.configuration(databaseURL: nil, dataDirectory: dataDirectory)
        configuration.adminToken = APITestServer.adminToken
        let logger = Logger(label: "tidings", logLevel: .warning, sink: CapturingLogSink())
        let client = try HTTPClient(configuration: .init(allowPrivateTargets: true), logger: logger)
        defer { client.stop() }

        func publicKey(_ application: Application) async throws -> String {
            let base = "http://127.0.0.1:\(application.port)"
            let json = ["Content-Type": "application/json", "Authorization": "Bearer \(APITestServer.adminToken)"]
            let created = try await client.execute(
                HTTPClientRequest(
                    url: base + "/v1/users", method: "POST", headers: json.map { ($0.key, $0.value) }, body: Array(#"{"name":"me"}"#.utf8)
                ))
            let user = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
            let apiKey = try #require(user["api_key"] as? String)
            let served = try await client.execute(
                HTTPClientRequest(url: base + "/v1/push/web/vapid-public-key", headers: [("Authorization", "Bearer \(apiKey)")]))
            #expect(served.status == 200)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(served.body)) as? [String: Any])
            return try #require(body["public_key"] as? String)
        }

        let first = try Application.start(configuration: configuration, logger: logger)
        let file = dataDirectory + "/vapid-private-key.pem"
        let pem = try String(contentsOfFile: file, encoding: .utf8)
        let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let stored = try P256KeyPair(pem: pem)
        #expect(try await publicKey(first) == stored.publicKeyBase64URL)
        let appBefore = try first.database.query(
            "SELECT id::text AS id, updated_at::text AS at, vapid_subject FROM push_apps WHERE platform = 'webpush'"
        ).single()
        #expect(try appBefore.decode("vapid_subject", as: String.self) == "mailto:admin@localhost")
        first.stop()

        // The next start reuses the file and leaves the app as it was.
        let second = try Application.start(configuration: configuration, logger: logger)
        defer { second.stop() }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == pem)
        #expect(try await publicKey(second) == stored.publicKeyBase64URL)
        let appAfter = try second.database.query("SELECT id::text AS id, updated_at::text AS at FROM push_apps WHERE platform = 'webpush'")
            .single()
        #expect(try appAfter.decode("id", as: String.self) == appBefore.decode("id", as: String.self))
        #expect(try appAfter.decode("at", as: String.self) == appBefore.decode("at", as: String.self), "an unchanged key rewrites nothing")
    }
}

enum TestPushKeysForVAPID {
    /// An RSA key: a private key, but not a P-256 one.
    static let rsaPEM = TestPushKeys.rsa.pem
}
