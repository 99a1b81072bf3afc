import Foundation
import Testing
import TidingsTestSupport

@testable import TidingsApp

/// Unknown credentials from one client address, through the real server.
@Suite struct CredentialFailuresAPITests {
    @Test func anAddressPastItsFailuresIsRefusedBeforeAnyLookupButTheAdminGoesOn() async throws {
        let server = try APITestServer { $0.credentialFailureRate = RatePolicy(count: 3, per: .seconds(60)) }
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        #expect(try await server.send("GET", "/v1/badge", token: key).status == 200, "a known key takes nothing")

        let madeUp = "tdg_0123456789ab_" + String(repeating: "A", count: 43)
        for _ in 0..<3 {
            #expect(try await server.send("GET", "/v1/badge", token: madeUp).status == 401)
        }
        let refused = try await server.send("GET", "/v1/badge", token: madeUp)
        #expect(refused.status == 429)
        #expect(refused.isProblem)
        #expect(try refused.object()["limit"] as? String == "credential_failures_per_address")
        // One failure back every 20 s; some of that may already have passed.
        #expect((1...20).contains(Int(refused.header("retry-after") ?? "") ?? 0), "\(refused.header("retry-after") ?? "none")")
        let stream = try await server.send("GET", "/v1/events?token=tds_" + String(repeating: "B", count: 43))
        #expect(stream.status == 429, "stream tokens count against the same address")

        #expect(
            try await server.send("GET", "/v1/users", token: APITestServer.adminToken).status == 200, "the admin token is never refused")
    }
}
