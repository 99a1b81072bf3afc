import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// Webhook secrets and watch header values are encrypted at rest: read the
/// tables directly and no plain secret is there.
@Suite struct SecretsAtRestTests {
    static let webhookURL = "https://93.184.216.34/hooks/tidings"

    /// Every row of every table in the schema, as text.
    static func dumpEveryTable(_ database: PostgresClient) throws -> String {
        let tables = try database.query(
            """
            SELECT quote_ident(table_name) AS name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            ORDER BY table_name
            """
        ).map { try $0.decode("name", as: String.self) }
        #expect(tables.contains("targets") && tables.contains("webhooks") && tables.contains("events") && tables.contains("deliveries"))
        var dump = ""
        for table in tables {
            // Table names from the catalog, quoted by PostgreSQL.
            let rows = try database.query("SELECT coalesce(string_agg(t::text, E'\\n'), '') AS rows FROM \(unsafeSQL: table) t")
            dump += "\(table):\n" + (try rows.single().decode("rows", as: String.self)) + "\n"
        }
        return dump
    }

    @Test func noPlainSecretInAnyTable() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let headerSecrets = ["Bearer tenant-page-token-31337", "apikey-77aa09", "version-token-55e1"]
        let watch = try await server.createWatch(
            token: key,
            [
                "url": APITestServer.publicURL,
                "headers": ["Authorization": headerSecrets[0], "X-Api-Key": headerSecrets[1]],
                "version_url": APITestServer.publicURL + "/version", "version_pointer": "/v",
                "version_headers": ["X-Version-Token": headerSecrets[2]],
            ])
        #expect(watch["header_names"] as? [String] == ["authorization", "x-api-key"])
        let created = try await server.send("POST", "/v1/webhooks", token: key, json: ["url": Self.webhookURL])
        #expect(created.status == 201, "\(created.text)")
        let webhookID = try #require(try created.object()["id"] as? String)
        let firstSecret = try #require(try created.object()["secret"] as? String)
        let rotated = try await server.send("POST", "/v1/webhooks/\(webhookID)/rotate-secret", token: key)
        let secondSecret = try #require(try rotated.object()["secret"] as? String)
        // Events and deliveries too: a test event queues one of each.
        #expect(try await server.send("POST", "/v1/webhooks/\(webhookID)/test", token: key).status == 202)
        #expect(try server.application.database.query("SELECT count(*) AS n FROM deliveries").single().decode("n", as: Int.self) >= 1)

        let dump = try Self.dumpEveryTable(server.application.database)
        let webhookSecrets = [firstSecret, secondSecret]
        for secret in headerSecrets + webhookSecrets + webhookSecrets.map({ String($0.dropFirst("whsec_".count)) }) {
            #expect(!dump.contains(secret), "a plain secret is stored")
        }
        #expect(dump.contains("enc:v1:\(server.application.secrets.keyring.current.id):"))

        // The fingerprint is an HMAC, not the SHA-256 anyone could test guesses against.
        let row = try server.application.database.query(
            """
            SELECT t.headers_fingerprint, t.secrets_sealed FROM targets t JOIN watches w ON w.target_id = t.id
            WHERE w.id = \(try #require(watch["id"] as? String))::uuid
            """
        ).single()
        let plainHash = SHA256.hash("authorization:\(headerSecrets[0])\nx-api-key:\(headerSecrets[1])\n").hex
        #expect(try row.decode("headers_fingerprint", as: String.self) != plainHash)
        #expect(try row.decode("secrets_sealed", as: Bool.self))
    }

    /// Rows from before sealing (plain values, SHA-256 fingerprints) are
    /// sealed by the next start; a plain target equal to a sealed one (a
    /// replica not yet upgraded wrote it) is merged into it.
    @Test func plainRowsAreSealedAtStart() async throws {
        let first = try APITestServer()
        let (_, key) = try await first.createUser()
        let sealedWatch = try await first.createWatch(
            token: key, ["url": APITestServer.publicURL, "headers": ["Authorization": "Bearer same"]])
        let legacyWatch = try await first.createWatch(
            token: key, ["url": APITestServer.publicURL, "headers": ["Authorization": "Bearer other"]])
        let loneWatch = try await first.createWatch(
            token: key, ["url": APITestServer.publicURL + "/lone", "headers": ["X-Token": "lone-secret-1"]])
        let created = try await first.send("POST", "/v1/webhooks", token: key, json: ["url": Self.webhookURL])
        let webhookID = try #require(try created.object()["id"] as? String)
        let plainSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        let database = first.application.database
        let sealedTarget = try first.targetID(ofWatch: try #require(sealedWatch["id"] as? String))
        let legacyTarget = try first.targetID(ofWatch: try #require(legacyWatch["id"] as? String))
        let loneTarget = try first.targetID(ofWatch: try #require(loneWatch["id"] as? String))
        // Rewrite them as the version before encryption stored them.
        try database.withConnection { connection in
            for (target, header) in [(legacyTarget, "authorization:Bearer same\n"), (loneTarget, "x-token:lone-secret-1\n")] {
                let name = String(header.prefix { $0 != ":" })
                let value = String(header.dropFirst(name.count + 1).dropLast())
                try connection.execute(
                    """
                    UPDATE targets SET headers = jsonb_build_object(\(name)::text, \(value)::text),
                        headers_fingerprint = \(SHA256.hash(header).hex), secrets_sealed = false
                    WHERE id = \(target)::uuid
                    """)
            }
            try connection.execute("UPDATE webhooks SET secret = \(plainSecret) WHERE id = \(webhookID)::uuid")
        }
        first.stop()

        let second = try APITestServer(sharingDatabaseWith: first)
        defer { second.stop() }
        let dump = try Self.dumpEveryTable(second.application.database)
        #expect(!dump.contains("lone-secret-1") && !dump.contains("Bearer same") && !dump.contains(plainSecret.dropFirst(6)))
        let unsealed = try second.application.database.query("SELECT count(*) AS n FROM targets WHERE NOT secrets_sealed")
        #expect(try unsealed.single().decode("n", as: Int.self) == 0)
        let stored = try second.application.database.query("SELECT secret FROM webhooks WHERE id = \(webhookID)::uuid")
            .single().decode("secret", as: String.self)
        #expect(try second.application.secrets.openWebhookSecret(stored) == plainSecret)
        // The duplicate's watch moved to the equal sealed target, which it now shares.
        #expect(try second.targetID(ofWatch: try #require(legacyWatch["id"] as? String)) == sealedTarget)
        let legacyLeft = try second.application.database.query("SELECT count(*) AS n FROM targets WHERE id = \(legacyTarget)::uuid")
        #expect(try legacyLeft.single().decode("n", as: Int.self) == 0)
        #expect(try second.targetsWithoutTheirIdentity() == 0)
        // The lone one kept its id and can be matched by a new watch with the same headers.
        let again = try await second.createWatch(
            token: key, ["url": APITestServer.publicURL + "/lone", "headers": ["X-Token": "lone-secret-1"]])
        #expect(try second.targetID(ofWatch: try #require(again["id"] as? String)) == loneTarget)
        let log = second.logSink.lines.joined(separator: "\n")
        #expect(log.contains("plain secrets encrypted"))
    }

    @Test func aDeploymentWithADatabaseNeedsTheKey() throws {
        var configuration = TestEnvironment.configuration(databaseURL: try TestDatabase.create())
        configuration.secretKey = nil
        let logger = Logger(label: "tidings", sink: CapturingLogSink())
        let error = try #require(throws: ConfigurationError.self) {
            try Application.start(configuration: configuration, logger: logger)
        }
        #expect(error.variable == "TIDINGS_SECRET_KEY")
        #expect("\(error)".contains("must be set when TIDINGS_DATABASE_URL is set"))
    }

    /// A key that is not the database's is refused at start, not at the
    /// first delivery.
    @Test func aWrongKeyIsRefusedAtStart() async throws {
        let first = try APITestServer()
        first.stop()
        let error = try #require(throws: StoredSecretsError.self) {
            try APITestServer(sharingDatabaseWith: first) { $0.secretKey = try! SecretKey(hex: TestSecretKeys.b) }
        }
        #expect("\(error)".contains("cannot be opened with the configured keys") && "\(error)".contains("TIDINGS_SECRET_KEY"))
        // With the database's key among the previous ones it starts.
        let rotating = try APITestServer(sharingDatabaseWith: first) {
            $0.secretKey = try! SecretKey(hex: TestSecretKeys.b)
            $0.previousSecretKeys = [try! SecretKey(hex: TestSecretKeys.a)]
        }
        rotating.stop()
    }
}
