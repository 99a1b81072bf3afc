import Foundation
import Testing
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// Migration 0034 on a database that already holds one push token on
/// several devices, as any tenant could register before it.
@Suite struct DeviceTokenMigrationTests {
    @Test func duplicatesKeepTheNewestDeviceAndAnnounceTheOthers() throws {
        let migrations = TestEnvironment.repositoryRoot + "/migrations"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-0034-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try FileManager.default.contentsOfDirectory(atPath: migrations).filter { $0.hasSuffix(".sql") }.sorted()
        let before = files.filter { $0 < "0034" }
        for file in before {
            try FileManager.default.copyItem(atPath: migrations + "/" + file, toPath: directory + "/" + file)
        }

        let logger = Logger(label: "test", sink: CapturingLogSink())
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.create()), logger: logger)
        defer { client.stop() }
        _ = try MigrationRunner(directory: directory, client: client, logger: logger).migrate()

        let users = try (0..<4).map { index in
            try client.query("INSERT INTO users (name) VALUES (\("u\(index)")) RETURNING id").single().decode("id", as: UUID.self)
        }
        // One token on three users' devices; the newest registration (last
        // seen) is the middle user's. A token on another app stays as it is.
        func device(_ user: UUID, token: String, app: String?, seenSecondsAgo: Int) throws -> UUID {
            try client.query(
                """
                INSERT INTO devices (user_id, platform, push_token, app_id, last_seen_at)
                VALUES (\(user), 'ios', \(token), \(app), now() - make_interval(secs => \(seenSecondsAgo)))
                RETURNING id
                """
            ).single().decode("id", as: UUID.self)
        }
        let oldest = try device(users[0], token: "shared", app: "com.example", seenSecondsAgo: 300)
        let newest = try device(users[1], token: "shared", app: "com.example", seenSecondsAgo: 10)
        let older = try device(users[2], token: "shared", app: "com.example", seenSecondsAgo: 60)
        let otherApp = try device(users[3], token: "shared", app: nil, seenSecondsAgo: 600)

        for file in files.filter({ $0 >= "0034" }) {
            try FileManager.default.copyItem(atPath: migrations + "/" + file, toPath: directory + "/" + file)
        }
        _ = try MigrationRunner(directory: directory, client: client, logger: logger).migrate()

        let kept = try client.query("SELECT id FROM devices ORDER BY id").map { try $0.decode("id", as: UUID.self) }
        #expect(Set(kept) == [newest, otherApp])
        let events = try client.query(
            """
            SELECT user_id, data->>'device_id' AS device, data->>'reason' AS reason
            FROM events WHERE type = 'device.invalidated' ORDER BY data->>'device_id'
            """)
        let announced = try events.map { (try $0.decode("user_id", as: UUID.self), try $0.decode("device", as: String.self)) }
        #expect(Set(announced.map(\.1)) == [oldest.canonicalString, older.canonicalString])
        #expect(Set(announced.map(\.0)) == [users[0], users[2]], "each to the owner of the device that went")
        #expect(try events.allSatisfy { try $0.decode("reason", as: String.self) == "push token registered by another user" })

        // And from now on the index holds: a second holder cannot be inserted.
        #expect(throws: PostgresError.self) { _ = try device(users[0], token: "shared", app: "com.example", seenSecondsAgo: 0) }
    }
}
