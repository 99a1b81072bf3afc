import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// `max_interval_seconds` and `next_check_at` (issue 16, decision 0028).
@Suite struct WatchScheduleAPITests {
    static let url = APITestServer.publicURL

    /// The target's interval and maximum, as the sync trigger keeps them.
    private func targetBounds(_ server: APITestServer, watchID: String) throws -> [Int?] {
        let target = try server.targetID(ofWatch: watchID)
        let row = try server.application.database.query(
            """
            SELECT interval_seconds, max_interval_seconds FROM targets WHERE id = \(target)::uuid
            """
        ).single()
        return [try row.decode("interval_seconds", as: Int?.self), try row.decode("max_interval_seconds", as: Int?.self)]
    }

    @Test func maximumDefaultsToTheIntervalAndNextCheckIsShown() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let before = Date()
        let watch = try await server.createWatch(token: key, ["url": Self.url, "interval_seconds": 600])
        let id = try #require(watch["id"] as? String)
        #expect(watch["max_interval_seconds"] as? Int == 600)
        // A new target is due at once (the test server does not poll).
        let next = try #require(watch["next_check_at"] as? String)
        let nextDate = try #require(ISO8601DateFormatter.withFraction.date(from: next) ?? ISO8601DateFormatter().date(from: next))
        #expect(abs(nextDate.timeIntervalSince(before)) < 60)
        #expect(try targetBounds(server, watchID: id) == [600, 600])

        let paused = try await server.send("POST", "/v1/watches/\(id)/pause", token: key).object()
        #expect(paused["next_check_at"] is NSNull)
        #expect(try targetBounds(server, watchID: id) == [nil, nil])
        let resumed = try await server.send("POST", "/v1/watches/\(id)/resume", token: key).object()
        #expect(resumed["next_check_at"] as? String != nil)
        let listed = try await server.send("GET", "/v1/watches", token: key).items()
        #expect(listed.first?["max_interval_seconds"] as? Int == 600)
        #expect(listed.first?["next_check_at"] as? String != nil)

        // A defaulted maximum follows the interval.
        let patched = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["interval_seconds": 900])
        #expect(patched.status == 200, "\(patched.text)")
        #expect(try patched.object()["max_interval_seconds"] as? Int == 900)
        #expect(try targetBounds(server, watchID: id) == [900, 900])
    }

    @Test func defaultMaximumVariableIsReadAndChecked() throws {
        #expect(try Configuration(environment: [:]).defaultMaximumInterval == nil)
        #expect(try Configuration(environment: ["TIDINGS_DEFAULT_MAX_INTERVAL": "6h"]).defaultMaximumInterval == .seconds(21_600))
        #expect {
            try Configuration(environment: ["TIDINGS_DEFAULT_MAX_INTERVAL": "2d"])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "TIDINGS_DEFAULT_MAX_INTERVAL"
        }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TIDINGS_DEFAULT_MAX_INTERVAL": "0s"]) }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TIDINGS_DEFAULT_MAX_INTERVAL": "-1h"]) }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TIDINGS_DEFAULT_MAX_INTERVAL": "3600"]) }
    }

    @Test func deploymentDefaultIsNeverBelowTheInterval() async throws {
        let server = try APITestServer { $0.defaultMaximumInterval = .seconds(3600) }
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let short = try await server.createWatch(token: key, ["url": Self.url, "interval_seconds": 120])
        #expect(short["max_interval_seconds"] as? Int == 3600)
        let long = try await server.createWatch(token: key, ["url": Self.url + "/long", "interval_seconds": 7200])
        #expect(long["max_interval_seconds"] as? Int == 7200)
        let id = try #require(long["id"] as? String)
        let patched = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["interval_seconds": 600])
        #expect(try patched.object()["max_interval_seconds"] as? Int == 3600)
    }

    @Test func targetTakesTheShortestMaximumOfItsUnpausedWatches() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, alice) = try await server.createUser()
        let (_, bob) = try await server.createUser()
        let first = try await server.createWatch(token: alice, ["url": Self.url, "interval_seconds": 60, "max_interval_seconds": 3600])
        #expect(first["max_interval_seconds"] as? Int == 3600)
        let firstID = try #require(first["id"] as? String)
        #expect(try targetBounds(server, watchID: firstID) == [60, 3600])
        let second = try await server.createWatch(token: bob, ["url": Self.url, "interval_seconds": 600, "max_interval_seconds": 900])
        let secondID = try #require(second["id"] as? String)
        #expect(try targetBounds(server, watchID: firstID) == [60, 900])
        // Bob's maximum below Alice's interval would be: never below it.
        let lowered = try await server.send(
            "PATCH", "/v1/watches/\(secondID)", token: bob, json: ["interval_seconds": 30, "max_interval_seconds": 30])
        #expect(lowered.status == 200, "\(lowered.text)")
        #expect(try targetBounds(server, watchID: firstID) == [30, 30])
        _ = try await server.send("POST", "/v1/watches/\(secondID)/pause", token: bob)
        #expect(try targetBounds(server, watchID: firstID) == [60, 3600])
    }

    @Test func chosenMaximumIsKeptAndGuardsTheInterval() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let watch = try await server.createWatch(token: key, ["url": Self.url, "interval_seconds": 60, "max_interval_seconds": 3600])
        let id = try #require(watch["id"] as? String)

        // The interval alone past the chosen maximum: 422 naming the interval, nothing written.
        let tooLong = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["interval_seconds": 7200])
        #expect(tooLong.status == 422)
        #expect((try tooLong.object()["detail"] as? String)?.hasPrefix("interval_seconds: ") == true, "\(tooLong.text)")
        // Within it: the maximum stays.
        let within = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["interval_seconds": 300])
        #expect(try within.object()["max_interval_seconds"] as? Int == 3600)
        // Both together.
        let both = try await server.send(
            "PATCH", "/v1/watches/\(id)", token: key, json: ["interval_seconds": 7200, "max_interval_seconds": 14400])
        #expect(both.status == 200, "\(both.text)")
        #expect(try both.object()["interval_seconds"] as? Int == 7200)
        #expect(try both.object()["max_interval_seconds"] as? Int == 14400)
        // The maximum alone below the interval: 422 naming the maximum.
        let below = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["max_interval_seconds": 3600])
        #expect(below.status == 422)
        #expect((try below.object()["detail"] as? String)?.hasPrefix("max_interval_seconds: ") == true, "\(below.text)")
        // null: back to the default, which follows the interval.
        let reset = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["max_interval_seconds": NSNull()])
        #expect(reset.status == 200, "\(reset.text)")
        #expect(try reset.object()["max_interval_seconds"] as? Int == 7200)
        let after = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["interval_seconds": 600])
        #expect(try after.object()["max_interval_seconds"] as? Int == 600)
        #expect(try targetBounds(server, watchID: id) == [600, 600])
    }

    @Test(arguments: [
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": null}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": "3600"}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": 1e30}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": 3600.5}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": -1}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": 10}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": 86401}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": 18446744073709551616}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": true}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": [3600]}"#,
        #"{"url": "https://93.184.215.14/", "interval_seconds": 600, "max_interval_seconds": 300}"#,
        #"{"url": "https://93.184.215.14/", "max_interval_seconds": 120}"#,
    ])
    func invalidMaximumsNameTheFieldAndWriteNothing(json: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send("POST", "/v1/watches", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422, "\(response.text)")
        #expect(response.isProblem)
        #expect((try response.object()["detail"] as? String)?.hasPrefix("max_interval_seconds: ") == true, "\(response.text)")
        #expect(try server.watchCount() == 0 && server.targetCount() == 0, "no partial write")
    }

    @Test(arguments: [
        #"{"max_interval_seconds": "3600"}"#,
        #"{"max_interval_seconds": 1e30}"#,
        #"{"max_interval_seconds": -1}"#,
        #"{"max_interval_seconds": 86401}"#,
        #"{"max_interval_seconds": 299, "name": "Changed"}"#,
    ])
    func invalidMaximumPatchesChangeNothing(json: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let watch = try await server.createWatch(token: key, ["url": Self.url, "name": "Original"])
        let id = try #require(watch["id"] as? String)
        let response = try await server.send("PATCH", "/v1/watches/\(id)", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422, "\(response.text)")
        #expect((try response.object()["detail"] as? String)?.hasPrefix("max_interval_seconds: ") == true, "\(response.text)")
        let after = try await server.send("GET", "/v1/watches/\(id)", token: key).object()
        #expect(after["name"] as? String == "Original")
        #expect(after["max_interval_seconds"] as? Int == 300)
        #expect(after["updated_at"] as? String == watch["updated_at"] as? String, "no partial write")
    }
}

extension ISO8601DateFormatter {
    /// The API's date-times carry fractional seconds.
    static var withFraction: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
