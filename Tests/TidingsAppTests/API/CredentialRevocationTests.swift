import Foundation
import Testing
import TidingsApp
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// Two replicas on one database, each caching verified keys: a key revoked
/// (or a user deleted) through one replica stops working on the other.
@Suite struct CredentialRevocationTests {
    @Test func aRevocationOnOneReplicaReachesTheOther() async throws {
        let first = try APITestServer()
        defer { first.stop() }
        let second = try APITestServer(sharingDatabaseWith: first)
        defer { second.stop() }

        let (userID, key) = try await first.createUser()
        let keys = try await first.send("GET", "/v1/users/\(userID)/keys", token: APITestServer.adminToken).items()
        let keyID = try #require(keys.first?["id"] as? String)
        // Both replicas have now verified (and cached) the key.
        #expect(try await first.send("GET", "/v1/me", token: key).status == 200)
        #expect(try await second.send("GET", "/v1/me", token: key).status == 200)
        #expect(try await second.send("GET", "/v1/me", token: key).status == 200)
        let metrics = try await second.send("GET", "/metrics").text
        #expect(metrics.contains(#"tidings_credential_cache_lookups_total{result="hit"}"#), "the second replica answered from its cache")

        #expect(try await first.send("DELETE", "/v1/users/\(userID)/keys/\(keyID)", token: APITestServer.adminToken).status == 200)
        #expect(try await first.send("GET", "/v1/me", token: key).status == 401, "the revoking replica forgets at once")
        // Within seconds (NOTIFY; the test machine may be busy), not at the
        // cache's 60 s expiry.
        #expect(
            try await eventually(timeout: .seconds(10), every: .milliseconds(20)) {
                try await second.send("GET", "/v1/me", token: key).status == 401
            })
    }

    @Test func aDeletedUserIsForgottenByEveryReplica() async throws {
        let first = try APITestServer()
        defer { first.stop() }
        let second = try APITestServer(sharingDatabaseWith: first)
        defer { second.stop() }

        let (userID, key) = try await first.createUser()
        #expect(try await second.send("GET", "/v1/badge", token: key).status == 200)
        #expect(try await first.send("DELETE", "/v1/users/\(userID)", token: APITestServer.adminToken).status == 204)
        #expect(
            try await eventually(timeout: .seconds(10), every: .milliseconds(20)) {
                try await second.send("GET", "/v1/badge", token: key).status == 401
            })
    }

    @Test func withTheCacheOffEveryRequestIsCheckedAgainstTheDatabase() async throws {
        let server = try APITestServer { $0.credentialCacheLifetime = .zero }
        defer { server.stop() }
        let (userID, key) = try await server.createUser()
        #expect(try await server.send("GET", "/v1/me", token: key).status == 200)
        // Revoked behind the API's back: no notification reaches anyone.
        try server.application.database.withConnection { connection in
            try connection.execute("UPDATE api_keys SET revoked_at = now() WHERE user_id = \(UUID(uuidString: userID)!)")
        }
        #expect(try await server.send("GET", "/v1/me", token: key).status == 401)
    }
}
