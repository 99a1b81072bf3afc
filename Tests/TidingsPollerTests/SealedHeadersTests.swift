import Foundation
import Testing
import TidingsCrypto
import TidingsDomain
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// Header values are sealed in `targets.headers` and opened only to build
/// the poller's request.
@Suite(.serialized) struct SealedHeadersTests {
    @Test func originGetsThePlainValuesTheDatabaseHoldsSealed() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return TestResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("hello".utf8))
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let headers = RequestHeaders(fields: ["Authorization": "Bearer origin-token-5521", "X-Key": "k-8812"])
        let settings = WatchSettings(url: try URLNormalizer.normalize("\(origin.baseURL)/private"), headers: headers)
        let watch = try context.watches.create(userID: user, settings: settings)
        #expect(watch.headerNames == ["authorization", "x-key"])

        let row = try context.database.query(
            """
            SELECT headers::text AS headers, headers_fingerprint, secrets_sealed FROM targets WHERE id = \(watch.targetID)
            """
        ).single()
        let stored: String = try row.decode("headers")
        #expect(try row.decode("secrets_sealed", as: Bool.self))
        #expect(!stored.contains("origin-token-5521") && !stored.contains("k-8812"))
        #expect(stored.contains("\"authorization\": \"enc:v1:") && stored.contains("\"x-key\": \"enc:v1:"))
        // The fingerprint is keyed: not the plain SHA-256 of the header list.
        #expect(
            try row.decode("headers_fingerprint", as: String.self)
                != SHA256.hash("authorization:Bearer origin-token-5521\nx-key:k-8812\n").hex)

        #expect(try await context.check(watch, with: poller).result == .baseline)
        let sent = try #require(script.requests.last).headers
        #expect(sent.first { $0.name.lowercased() == "authorization" }?.value == "Bearer origin-token-5521")
        #expect(sent.first { $0.name.lowercased() == "x-key" }?.value == "k-8812")

        // Equal headers still share the target, although every sealed copy differs.
        let other = try context.watches.create(userID: try context.user(), settings: settings)
        #expect(other.targetID == watch.targetID)
        let different = WatchSettings(url: settings.url, headers: RequestHeaders(fields: ["Authorization": "Bearer other"]))
        #expect(try context.watches.create(userID: user, settings: different).targetID != watch.targetID)
    }

    @Test func aValueThatDoesNotOpenFailsTheCheckWithoutARequest() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return TestResponse(status: 200, headers: [], body: Array("hello".utf8))
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let settings = WatchSettings(
            url: try URLNormalizer.normalize("\(origin.baseURL)/private"),
            headers: RequestHeaders(fields: ["Authorization": "Bearer origin-token-5521"])
        )
        let watch = try context.watches.create(userID: user, settings: settings)
        // Sealed under a key this poller does not have.
        let foreign = try SecretKeyring(current: try SecretKey(hex: TestSecretKeys.b))
            .seal("Bearer origin-token-5521", context: "targets.headers.authorization")
        try context.database.withConnection { connection in
            try connection.execute(
                "UPDATE targets SET headers = jsonb_build_object('authorization', \(foreign)::text) WHERE id = \(watch.targetID)")
        }
        let result = try await context.check(watch, with: poller)
        #expect(result.result == .failed)
        #expect(script.requests.isEmpty, "nothing is sent without the headers")
        #expect(result.error?.contains("cannot be decrypted") == true, "\(result.error ?? "no error")")
    }
}
