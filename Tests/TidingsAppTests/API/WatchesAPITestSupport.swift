import Foundation
import Testing
import TidingsApp
import TidingsPostgres
import TidingsTestSupport

/// Watch helpers for the API tests. Public addresses are written as
/// literals: the SSRF check resolves host names, and the tests must not
/// depend on DNS.
extension APITestServer {
    static let publicURL = "https://93.184.215.14/news"

    /// Creates a watch and returns its JSON; fails the test unless 201.
    func createWatch(token: String, _ body: [String: Any]) async throws -> [String: Any] {
        let response = try await send("POST", "/v1/watches", token: token, json: body)
        #expect(response.status == 201, "\(response.text)")
        return try response.object()
    }

    /// Rows of `targets`, from the database directly.
    func targetCount() throws -> Int {
        try application.database.query("SELECT count(*) AS n FROM targets")[0].decode("n", as: Int.self)
    }

    /// Targets whose `target_identities` row (migration 0028) is missing
    /// or says something else than the target.
    func targetsWithoutTheirIdentity() throws -> Int {
        try application.database.query(
            """
            SELECT count(*) AS n FROM targets t
            WHERE NOT EXISTS (
                SELECT 1 FROM target_identities i
                WHERE i.target_id = t.id AND i.url = t.url AND i.headers_fingerprint = t.headers_fingerprint
                  AND i.version_url IS NOT DISTINCT FROM t.version_url AND i.version_pointer IS NOT DISTINCT FROM t.version_pointer)
            """)[0].decode("n", as: Int.self)
    }

    func watchCount() throws -> Int {
        try application.database.query("SELECT count(*) AS n FROM watches")[0].decode("n", as: Int.self)
    }

    /// The target a watch uses.
    func targetID(ofWatch id: String) throws -> String {
        try application.database.query("SELECT target_id::text AS id FROM watches WHERE id = \(id)::uuid")[0].decode("id")
    }
}
