import Foundation
import Testing
import TidingsApp
import TidingsPostgres
import TidingsTestSupport

@Suite struct BadgeAPITests {
    @Test func everyUserStartsWithAnEmptyBadgeOfItsOwn() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (firstID, firstKey) = try await server.createUser()
        let (_, secondKey) = try await server.createUser()

        let badge = try await server.send("GET", "/v1/badge", token: firstKey)
        #expect(badge.status == 200)
        let body = try badge.object()
        #expect(body["count"] as? Int == 0)
        #expect(body["sequence"] as? Int == 0)
        #expect(body["updated_at"] as? String != nil)

        // The row is the user's own: raising one badge leaves the other alone.
        try server.application.database.withConnection { connection in
            try connection.execute("UPDATE badges SET count = 4, sequence = 1 WHERE user_id = \(UUID(uuidString: firstID)!)")
        }
        #expect(try await server.send("GET", "/v1/badge", token: firstKey).object()["count"] as? Int == 4)
        #expect(try await server.send("GET", "/v1/badge", token: secondKey).object()["count"] as? Int == 0)
    }

    @Test func needsAUserKey() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        #expect(try await server.send("GET", "/v1/badge").status == 401)
        #expect(try await server.send("GET", "/v1/badge", token: APITestServer.adminToken).status == 403)
    }

    @Test func countCannotGoNegative() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (id, _) = try await server.createUser()
        #expect(throws: (any Error).self) {
            try server.application.database.withConnection { connection in
                try connection.execute("UPDATE badges SET count = -1 WHERE user_id = \(UUID(uuidString: id)!)")
            }
        }
    }
}
