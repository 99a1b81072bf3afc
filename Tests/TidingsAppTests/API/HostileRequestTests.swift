import Foundation
import Testing
import TidingsApp
import TidingsTestSupport

/// Values from clients that once could trap the process (an out-of-range
/// cursor time killed it): each must get a 400 or 422 problem naming the
/// parameter, and the server must go on answering.
@Suite struct HostileRequestTests {
    private static let uuid = "7d444840-9dc0-11d1-b245-5ffdce74fad2"

    /// The cursor encoding (base64url without padding) around hostile times.
    private static func cursor(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static let hostileCursors = [
        cursor("9223372036854775807.\(uuid)"),
        cursor("-9223372036854775808.\(uuid)"),
        cursor("99999999999999999999999.\(uuid)"),
        cursor("253402300800000001.\(uuid)"),
        cursor("-62135596801000000.\(uuid)"),
        cursor("1e300.\(uuid)"),
        cursor("nan.\(uuid)"),
        cursor("0.not-a-uuid"),
        cursor("0"),
        cursor(""),
        "",
        "%00",
        "a",
        String(repeating: "A", count: 4000),
        "....",
    ]

    static let hostileLimits = ["9223372036854775808", "-9223372036854775809", "-1", "0", "201", "1e3", "1.5", "", "%20", "0x10", "٣"]

    @Test func hostileCursorsAndLimitsOnEveryListAre400() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let watch = try await server.send("POST", "/v1/watches", token: key, json: ["url": APITestServer.publicURL])
        let watchID = try #require(try watch.object()["id"] as? String)
        let hook = try await server.send("POST", "/v1/webhooks", token: key, json: ["url": APITestServer.publicURL + "hook"])
        let webhookID = try #require(try hook.object()["id"] as? String)
        let global = try await server.send(
            "POST", "/v1/admin/webhooks", token: APITestServer.adminToken,
            json: ["url": APITestServer.publicURL + "global-hook"])
        let globalID = try #require(try global.object()["id"] as? String, "\(global.text)")
        let lists: [(path: String, token: String)] = [
            ("/v1/users", APITestServer.adminToken),
            ("/v1/devices", key),
            ("/v1/watches", key),
            ("/v1/watches/\(watchID)/changes", key),
            ("/v1/webhooks", key),
            ("/v1/webhooks/\(webhookID)/deliveries", key),
            ("/v1/admin/webhooks", APITestServer.adminToken),
            ("/v1/admin/webhooks/\(globalID)/deliveries", APITestServer.adminToken),
        ]
        for list in lists {
            for cursor in Self.hostileCursors {
                let response = try await server.send("GET", "\(list.path)?cursor=\(cursor)", token: list.token)
                #expect(response.status == 400 && response.isProblem, "\(list.path) cursor \(cursor.prefix(40)): \(response.status)")
                #expect((try? response.object()["detail"] as? String)??.hasPrefix("cursor") == true)
            }
            for limit in Self.hostileLimits {
                let response = try await server.send("GET", "\(list.path)?limit=\(limit)", token: list.token)
                #expect(response.status == 400 && response.isProblem, "\(list.path) limit \(limit): \(response.status)")
                #expect((try? response.object()["field"] as? String) == "limit", "\(list.path) limit \(limit): \(response.text)")
            }
            // The oldest and newest positions a real row can have are cursors.
            for edge in ["-62135596800000000", "253402300799000000", "0"] {
                let response = try await server.send("GET", "\(list.path)?cursor=\(Self.cursor("\(edge).\(Self.uuid)"))", token: list.token)
                #expect(response.status == 200, "\(list.path) cursor at \(edge): \(response.status) \(response.text)")
            }
        }
        #expect(try await server.send("GET", "/healthz").status == 200)
        #expect(try await server.send("GET", "/v1/watches/\(watchID)", token: key).status == 200)
    }

    @Test func hostileDeliveryFiltersAre400OrServed() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let hook = try await server.send("POST", "/v1/webhooks", token: key, json: ["url": APITestServer.publicURL + "hook"])
        let path = "/v1/webhooks/\(try #require(try hook.object()["id"] as? String))/deliveries"
        for value in [
            "99999-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00+99:00",
            "1e300", "", "%00",
        ] {
            let response = try await server.send("GET", "\(path)?since=\(value)", token: key)
            #expect(response.status == 400 && response.isProblem, "since=\(value.prefix(40)): \(response.status)")
        }
        // Extreme but well-formed times are filters like any other.
        for value in [
            "0000-01-01T00:00:00Z", "9999-12-31T23:59:60%2B23:59", "0001-01-01T00:00:00-23:59",
            "2026-01-01T00:00:00.\(String(repeating: "9", count: 3000))Z",
        ] {
            let response = try await server.send("GET", "\(path)?until=\(value)", token: key)
            #expect(response.status == 200, "until=\(value): \(response.status) \(response.text)")
        }
    }

    /// One server for every value: each case is a request, not a process.
    @Test func hostileIntervalsAre422() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        for value in [
            "1e300", "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1.5", "-0.0", "\"60\"", "true", "[60]", "{}",
            "123456789012345678901234567890",
        ] {
            let body = #"{"url": "\#(APITestServer.publicURL)", "interval_seconds": \#(value)}"#
            let created = try await server.send("POST", "/v1/watches", token: key, rawBody: Array(body.utf8))
            #expect(created.status == 422 && created.isProblem, "\(value): \(created.status) \(created.text)")
            #expect((try created.object()["detail"] as? String)?.hasPrefix("interval_seconds") == true, "\(value): \(created.text)")
        }
        let list = try await server.send("GET", "/v1/watches", token: key)
        #expect(try list.items().isEmpty, "nothing half-written")
    }
}
