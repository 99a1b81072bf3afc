import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsHTTPClient
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// A running Tidings (API and dispatcher) on a fresh database, with a JSON
/// client for its API and direct SQL for setting up events.
final class DispatcherHarness: Sendable {
    static let adminToken = TestAPIClient.adminToken

    let application: Application
    let api: TestAPIClient
    let logSink = CapturingLogSink()

    init(databaseURL: String? = nil, configure: (inout Configuration) -> Void = { _ in }) throws {
        var configuration = Configuration()
        configuration.databaseURL = try databaseURL ?? TestDatabase.create()
        configuration.secretKey = try SecretKey(hex: TestSecretKeys.a)
        configuration.listenHost = "127.0.0.1"
        configuration.listenPort = 0
        configuration.resourcesDirectory = TestSupport.repositoryRoot
        configuration.shutdownTimeout = .seconds(2)
        configuration.adminToken = Self.adminToken
        configuration.allowPrivateTargets = true
        configuration.webhookTimeout = .seconds(5)
        configure(&configuration)
        application = try Application.start(configuration: configuration, logger: Logger(label: "tidings", logLevel: .info, sink: logSink))
        api = try TestAPIClient(port: application.port)
    }

    func stop() {
        api.stop()
        application.stop()
    }

    var database: PostgresClient {
        application.database
    }

    typealias Response = TestAPIResponse

    func send(_ method: String, _ path: String, token: String? = nil, json: Any? = nil) async throws -> Response {
        try await api.send(method, path, token: token, json: json)
    }

    func createUser() async throws -> (id: UUID, key: String) {
        let user = try await api.createUser()
        return (try #require(UUID(uuidString: user.id)), user.key)
    }

    /// A webhook of the user with this key, or a global one when `key` is nil.
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

    /// Stores an event through `queue_events`, as the poller and the badge triggers do.
    @discardableResult
    func enqueue(user: UUID, type: String = "watch.changed", data: String = #"{"n":1}"#) throws -> UUID {
        try database.query("""
            SELECT e.id FROM queue_events(ARRAY[ROW(\(user)::uuid, \(type)::text, \(data)::jsonb, NULL, NULL)::outbox_event]) AS e(id)
            """)[0].decode("id")
    }

    /// Many events in one transaction.
    func enqueueBurst(user: UUID, count: Int) throws {
        _ = try database.query("""
            SELECT count(*) FROM queue_events((
                SELECT array_agg(ROW(\(user)::uuid, 'watch.changed', jsonb_build_object('n', n), NULL, NULL)::outbox_event ORDER BY n)
                FROM generate_series(1, \(count)) AS n
            ))
            """)
    }

    func scalar(_ query: PostgresQuery) throws -> Int {
        try database.query(query)[0].decode("n")
    }

    /// Deliveries of a webhook, as the API lists them.
    func deliveries(of webhook: UUID, key: String?, query: String = "") async throws -> [[String: Any]] {
        let prefix = key == nil ? "/v1/admin/webhooks" : "/v1/webhooks"
        let response = try await send("GET", "\(prefix)/\(webhook.uuidString.lowercased())/deliveries\(query)", token: key ?? Self.adminToken)
        #expect(response.status == 200, "\(response.text)")
        return try #require(try response.object()["data"] as? [[String: Any]])
    }
}
