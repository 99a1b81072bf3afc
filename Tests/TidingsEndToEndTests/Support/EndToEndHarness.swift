import Foundation
import Testing
import TidingsPostgres
import TidingsTestSupport

/// A running Tidings as the end-to-end tests drive it: its API through
/// `TestAPIClient`, its database directly for setting up events and
/// reading what happened. `DispatcherHarness` runs it in this process,
/// `ProcessHarness` as the real executable in a child process; the
/// operations below are the same for both.
protocol EndToEndHarness {
    var api: TestAPIClient { get }
    var database: PostgresClient { get }
}

extension EndToEndHarness {
    static var adminToken: String { TestAPIClient.adminToken }

    func send(_ method: String, _ path: String, token: String? = nil, json: Any? = nil) async throws -> TestAPIResponse {
        try await api.send(method, path, token: token, json: json)
    }

    func createUser() async throws -> (id: UUID, key: String) {
        let user = try await api.createUser()
        return (try #require(UUID(uuidString: user.id)), user.key)
    }

    /// A webhook of the user with this key, or a global one when `key` is nil.
    @discardableResult
    func createWebhook(key: String?, url: String, eventTypes: [String]? = nil) async throws -> (id: UUID, secret: String) {
        var body: [String: Any] = ["url": url]
        if let eventTypes { body["event_types"] = eventTypes }
        let path = key == nil ? "/v1/admin/webhooks" : "/v1/webhooks"
        let response = try await send("POST", path, token: key ?? Self.adminToken, json: body)
        #expect(response.status == 201, "\(response.text)")
        let object = try response.object()
        let id = try #require(object["id"] as? String)
        return (try #require(UUID(uuidString: id)), try #require(object["secret"] as? String))
    }

    /// The APNs app of `mock`, sandbox, with its token-signing key.
    func createPushApp(on mock: MockPushServer) async throws {
        try await api.expect(
            201, "POST", "/v1/push-apps", token: Self.adminToken,
            json: [
                "platform": "apns", "app_id": mock.startup.topic, "environment": "sandbox",
                "team_id": mock.startup.team_id, "key_id": mock.startup.key_id, "private_key": try mock.apnsKey,
            ])
    }

    /// `count` iOS devices of the user in app `appID`, tokens 1 to `count`
    /// as 64 hex digits: straight into the table, past the API's pace.
    func insertDevices(user: UUID, count: Int, appID: String) throws {
        _ = try database.query(
            """
            INSERT INTO devices (user_id, platform, push_token, app_id)
            SELECT \(user)::uuid, 'ios', lpad(to_hex(n), 64, '0'), \(appID)
            FROM generate_series(1, \(count)) AS n
            """)
    }

    /// Stores an event through `queue_events`, as the poller and the badge triggers do.
    @discardableResult
    func enqueue(user: UUID, type: String = "watch.changed", data: String = #"{"n":1}"#) throws -> UUID {
        try database.query(
            """
            SELECT e.id FROM queue_events(ARRAY[ROW(\(user)::uuid, \(type)::text, \(data)::jsonb, NULL, NULL)::outbox_event]) AS e(id)
            """)[0].decode("id")
    }

    /// `count` watch.changed events in one transaction.
    func enqueueBurst(user: UUID, count: Int) throws {
        _ = try database.query(
            """
            SELECT count(*) FROM queue_events((
                SELECT array_agg(ROW(\(user)::uuid, 'watch.changed', jsonb_build_object('n', n), NULL, NULL)::outbox_event ORDER BY n)
                FROM generate_series(1, \(count)) AS n
            ))
            """)
    }

    /// The integer column `n` of the query's first row.
    func scalar(_ query: PostgresQuery) throws -> Int {
        try database.query(query)[0].decode("n")
    }

    /// Deliveries of a webhook, as the API lists them.
    func deliveries(of webhook: UUID, key: String?, query: String = "") async throws -> [[String: Any]] {
        let prefix = key == nil ? "/v1/admin/webhooks" : "/v1/webhooks"
        let response = try await send(
            "GET", "\(prefix)/\(webhook.uuidString.lowercased())/deliveries\(query)", token: key ?? Self.adminToken)
        #expect(response.status == 200, "\(response.text)")
        return try #require(try response.object()["data"] as? [[String: Any]])
    }
}
