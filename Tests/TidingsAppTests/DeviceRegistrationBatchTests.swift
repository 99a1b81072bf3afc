import Foundation
import Testing
import TidingsApp
import TidingsPostgres

@testable import TidingsDomain

/// How a batch of device registrations is applied. In the store, only an
/// exact repeat of the latest registration of the same user and token is
/// answered without being sent; anything that could change the row is sent,
/// in order. In PostgreSQL, `register_devices` answers each element in
/// array order, whether the batch runs as one statement (distinct devices)
/// or element by element (a device named twice).
@Suite struct DeviceRegistrationBatchTests {
    private typealias Pending = DeviceStore.PendingRegistration

    private static let ada = UUID()
    private static let bob = UUID()

    private static func pending(_ user: UUID, _ token: String, name: String? = nil) -> Pending {
        Pending(userID: user, registration: DeviceRegistration(platform: .ios, pushToken: token, name: name))
    }

    @Test func exactRepeatsAreAnsweredByTheFirst() {
        let a = Self.pending(Self.ada, "t")
        let (distinct, answeredBy) = DeviceStore.withoutRepeats([a, a, a])
        #expect(distinct == [a])
        #expect(answeredBy == [0, 0, 0])
    }

    @Test func aDifferentRegistrationInBetweenIsSentAndSoIsTheRepeatAfterIt() {
        let a = Self.pending(Self.ada, "t", name: "one")
        let b = Self.pending(Self.ada, "t", name: "two")
        let (distinct, answeredBy) = DeviceStore.withoutRepeats([a, b, a, a])
        #expect(distinct == [a, b, a])
        #expect(answeredBy == [0, 1, 2, 2])
    }

    @Test func otherTokensAndUsersDoNotInterrupt() {
        let a = Self.pending(Self.ada, "t")
        let other = Self.pending(Self.ada, "u")
        let bobs = Self.pending(Self.bob, "t")
        let (distinct, answeredBy) = DeviceStore.withoutRepeats([a, other, bobs, a, bobs])
        #expect(distinct == [a, other, bobs])
        #expect(answeredBy == [0, 1, 2, 0, 2])
    }

    /// One result row of `register_devices`.
    private struct Registered {
        let id: UUID
        let userID: String
        let pushToken: String
        let name: String?
        let locale: String?
        let created: Bool
    }

    private static func element(_ user: String, _ token: String, name: String? = nil, locale: String? = nil) -> [String: Any] {
        [
            "user_id": user, "platform": "ios", "push_token": token, "app_id": NSNull(),
            "name": name ?? NSNull(), "locale": locale ?? NSNull(),
        ]
    }

    private static func registerDevices(_ elements: [[String: Any]], on database: PostgresClient) throws -> [Registered] {
        let batch = String(decoding: try JSONSerialization.data(withJSONObject: elements), as: UTF8.self)
        return try database.query("SELECT * FROM register_devices(\(batch)::jsonb)").map { row in
            Registered(
                id: try row.decode("id"),
                userID: (try row.decode("user_id", as: UUID.self)).uuidString.lowercased(),
                pushToken: try row.decode("push_token"),
                name: try row.decode("name"),
                locale: try row.decode("locale"),
                created: try row.decode("created")
            )
        }
    }

    @Test func distinctDevicesNewAndExistingAnswerInArrayOrder() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let ada = try await server.createUser().id.lowercased()
        let bob = try await server.createUser().id.lowercased()
        let database = server.application.database
        let tokens = (0..<12).map { "token-\($0)" }
        let odd = tokens.indices.filter { $0 % 2 == 1 }
        let existing = try Self.registerDevices(odd.map { Self.element(ada, tokens[$0], name: "old") }, on: database)
        #expect(existing.allSatisfy { $0.created })

        // Every odd token exists; every fourth one re-registers without a
        // name, which keeps the stored one. Bob's device, in the same batch,
        // is his own.
        let batch =
            tokens.indices.map { Self.element(ada, tokens[$0], name: $0 % 4 == 1 ? nil : "new-\($0)") }
            + [Self.element(bob, "bob-token-0", name: "bob's")]
        let rows = try Self.registerDevices(batch, on: database)

        try #require(rows.count == batch.count)
        #expect(rows.map(\.pushToken) == tokens + ["bob-token-0"])
        #expect(rows.map(\.userID) == Array(repeating: ada, count: tokens.count) + [bob])
        #expect(rows.map(\.created) == tokens.indices.map { $0 % 2 == 0 } + [true])
        #expect(rows.map(\.name) == tokens.indices.map { $0 % 4 == 1 ? "old" : "new-\($0)" } + ["bob's"])
        for (position, index) in odd.enumerated() {
            #expect(rows[index].id == existing[position].id, "an existing device keeps its id")
        }
        #expect(Set(rows.map(\.id)).count == rows.count)
        let stored = try database.query("SELECT count(*)::int AS n FROM devices")[0].decode("n", as: Int.self)
        #expect(stored == tokens.count + 1)
    }

    @Test func aDeviceNamedTwiceInABatchActsAsRequestsOneAfterTheOther() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let ada = try await server.createUser().id.lowercased()
        let database = server.application.database
        let kept = try Self.registerDevices([Self.element(ada, "kept", name: "before")], on: database)[0]

        let rows = try Self.registerDevices(
            [
                Self.element(ada, "fresh", name: "one"),
                Self.element(ada, "other"),
                Self.element(ada, "fresh", name: "two"),
                Self.element(ada, "fresh", locale: "fr"),
                Self.element(ada, "kept", name: "a"),
                Self.element(ada, "kept", name: "b"),
            ], on: database)

        try #require(rows.count == 6)
        #expect(rows.map(\.pushToken) == ["fresh", "other", "fresh", "fresh", "kept", "kept"])
        #expect(rows.map(\.created) == [true, true, false, false, false, false])
        #expect(rows.map(\.name) == ["one", nil, "two", "two", "a", "b"])
        #expect(rows.map(\.locale) == [nil, nil, nil, "fr", nil, nil])
        #expect(rows[0].id == rows[2].id && rows[2].id == rows[3].id)
        #expect(rows[4].id == kept.id && rows[5].id == kept.id)
        let stored = try database.query("SELECT count(*)::int AS n FROM devices")[0].decode("n", as: Int.self)
        #expect(stored == 3)
    }
}
