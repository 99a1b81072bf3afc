import Dispatch
import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsPostgres
import TidingsTestSupport

@Suite struct BadgeEventsTests {
    @Test func badgeEventsCarryDevicesAndReadyMadePushPayloads() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key, watches) = try await server.userWithWatches(1)
        for (platform, token) in [("ios", "apns-token-1"), ("android", "fcm-token-1")] {
            #expect(
                try await server.send("POST", "/v1/devices", token: key, json: ["platform": platform, "push_token": token]).status == 201)
        }
        try server.recordChange(watchID: watches[0], text: "news")

        let event = try #require(try server.badgeEvents(userID: userID).last)
        #expect(event["user_id"] as? String == userID.lowercased())
        #expect(event["count"] as? Int == 1)
        #expect(event["sequence"] as? Int == 1)
        #expect(event["updated_at"] as? String != nil)
        let devices = try #require(event["devices"] as? [[String: Any]])
        #expect(devices.map { $0["platform"] as? String } == ["ios", "android"])
        #expect(devices.map { $0["push_token"] as? String } == ["apns-token-1", "fcm-token-1"])
        #expect(devices.allSatisfy { $0["id"] is String })

        let push = try #require(event["push"] as? [String: Any])
        let apns = try #require(push["apns"] as? [String: Any])
        // Badge only: no alert or sound, sent at low priority, collapsed per user.
        #expect(NSDictionary(dictionary: try #require(apns["payload"] as? [String: Any])) == ["aps": ["badge": 1]] as NSDictionary)
        let headers = try #require(apns["headers"] as? [String: String])
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "5")
        #expect(headers["apns-collapse-id"] == "tidings-badge-\(userID.lowercased())")
        let fcm = try #require(push["fcm"] as? [String: Any])
        let android = try #require((fcm["android"] as? [String: Any])?["notification"] as? [String: Any])
        #expect(android["notification_count"] as? Int == 1)
        let fcmAPNs = try #require(fcm["apns"] as? [String: Any])
        #expect(NSDictionary(dictionary: try #require(fcmAPNs["payload"] as? [String: Any])) == ["aps": ["badge": 1]] as NSDictionary)
    }

    @Test func watchChangedEventsCarryTheChangeAndBothCounts() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(2)
        try server.recordChange(watchID: watches[1], text: "other")
        let changeID = try #require(try server.recordChange(watchID: watches[0], text: "fresh"))

        let row = try #require(
            try server.application.database.query(
                """
                SELECT data::text AS data FROM events WHERE type = 'watch.changed' AND data->>'change_id' = \(changeID)
                """
            ).first)
        let event = try #require(
            try JSONSerialization.jsonObject(with: Data(try row.decode("data", as: String.self).utf8)) as? [String: Any])
        let history = try await server.send("GET", "/v1/watches/\(watches[0])/changes", token: key).items()
        let change = try #require(history.last)
        #expect(event["watch_id"] as? String == watches[0].lowercased())
        #expect(event["url"] as? String == "https://93.184.215.14/page-0")
        #expect(event["name"] as? String != nil)
        #expect(event["previous_hash"] as? String == change["previous_hash"] as? String)
        #expect(event["new_hash"] as? String == change["new_hash"] as? String)
        #expect(event["detected_at"] as? String == change["detected_at"] as? String)
        #expect(event["diff"] as? String == "-old\n+fresh")
        #expect(event["unread_count"] as? Int == 1)
        #expect(event["unread_total"] as? Int == 2)
    }

    @Test func aBurstOfChangesQueuesOneBadgeDeliveryPerWebhookWithTheFinalCount() async throws {
        let server = try APITestServer { $0.badgeCoalescingWindow = .seconds(7) }
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(5)
        let badgeHook = try await createWebhook(server, token: key, types: ["badge.updated"])
        let changeHook = try await createWebhook(server, token: key, types: ["watch.changed"])
        let globalHook = try await createWebhook(server, token: APITestServer.adminToken, types: ["badge.updated"], global: true)

        for round in 0..<10 {
            for watch in watches { try server.recordChange(watchID: watch, text: "round \(round)") }
        }

        let badgeDeliveries = try deliveries(server, webhookID: badgeHook)
        #expect(badgeDeliveries.count == 1, "a queued badge is replaced, not joined, by a newer one")
        #expect(badgeDeliveries.first?.count == 50)
        #expect(badgeDeliveries.first?.sequence == 50)
        let delay = try #require(badgeDeliveries.first?.delay)
        #expect(delay > 6.5 && delay < 7.5, "the first badge of a burst waits the configured window, waited \(delay)")
        #expect(try deliveries(server, webhookID: globalHook).map(\.count) == [50])
        let changeDeliveries = try deliveries(server, webhookID: changeHook)
        #expect(changeDeliveries.count == 50, "every change is its own event")
        // Due at once: the dispatcher may already have tried (and rescheduled) them.
        #expect(changeDeliveries.allSatisfy { $0.attempts > 0 || $0.delay < 1 }, "change events are not delayed")
    }

    @Test func aBatchOfChangesMovesEachUsersBadgeOnce() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (firstUser, firstKey, firstWatches) = try await server.userWithWatches(3)
        let (secondUser, secondKey, secondWatches) = try await server.userWithWatches(1)
        // The first watch twice: a watch counts once per batch.
        let batch = [firstWatches[0], firstWatches[0], firstWatches[1], firstWatches[2], secondWatches[0]]
        let ids = "{" + batch.joined(separator: ",") + "}"
        let written = try server.application.database.query(
            """
            SELECT count(*) AS n FROM record_changes(
                \(ids)::uuid[], array_fill('changed'::text, ARRAY[5]), array_fill(\(SHA256.hash("batch").hex)::text, ARRAY[5]), array_fill('batch'::text, ARRAY[5]),
                array_fill(false, ARRAY[5]), array_fill(''::text, ARRAY[5]), array_fill(200, ARRAY[5]), array_fill(5::bigint, ARRAY[5]))
            """)[0].decode("n", as: Int.self)
        #expect(written == 4)
        #expect(try await server.badge(key: firstKey) == (3, 1))
        #expect(try await server.badge(key: secondKey) == (1, 1))
        #expect(try server.badgeEvents(userID: firstUser).map { $0["count"] as? Int } == [3])
        #expect(try server.badgeEvents(userID: secondUser).count == 1)
        let changedEvents = try server.application.database.query(
            "SELECT count(*) AS n FROM events WHERE type = 'watch.changed'"
        )[0].decode("n", as: Int.self)
        #expect(changedEvents == 4)
        try server.expectCountsConsistent()
    }

    @Test func aBadgeAlreadyHandedToADispatcherIsNotReplaced() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        let hook = try await createWebhook(server, token: key, types: ["badge.updated"])
        try server.recordChange(watchID: watches[0], text: "one")
        try server.application.database.withConnection { connection in
            try connection.execute("UPDATE deliveries SET lease_owner = 'test', lease_until = now() + interval '1 minute'")
        }
        try server.recordChange(watchID: watches[0], text: "two")
        #expect(try deliveries(server, webhookID: hook).map(\.count).sorted() == [1, 2])
    }

    @Test func concurrentChangesAndReadsNeverLoseAnUpdate() async throws {
        let server = try APITestServer { $0.databasePoolSize = 24 }
        defer { server.stop() }
        let (userID, key, watches) = try await server.userWithWatches(10)
        let changesPerWatch = 30

        // 300 changes from up to 24 connections at once (as several poller
        // workers would write them) while 100 reads arrive over HTTP.
        let writes = Task.detached {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let queue = DispatchQueue(label: "writers", attributes: .concurrent)
                let group = DispatchGroup()
                let failures = FailureLog()
                for round in 0..<changesPerWatch {
                    for watch in watches {
                        queue.async(group: group) {
                            do { try server.recordChange(watchID: watch, text: "round \(round)") } catch { failures.add(error) }
                        }
                    }
                }
                group.notify(queue: .global()) {
                    if let error = failures.first { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask {
                    if index % 10 == 0 {
                        return try await server.send("POST", "/v1/badge/read-all", token: key).status
                    }
                    return try await server.send("POST", "/v1/watches/\(watches[index % watches.count])/read", token: key).status
                }
            }
            for try await status in group { #expect(status == 200) }
        }
        try await writes.value

        try server.expectCountsConsistent()
        let unread = try server.application.database.query(
            """
            SELECT count(*) AS n FROM changes WHERE user_id = \(userID)::uuid AND read_at IS NULL
            """)[0].decode("n", as: Int.self)
        let total = try server.application.database.query(
            """
            SELECT count(*) AS n FROM changes WHERE user_id = \(userID)::uuid
            """)[0].decode("n", as: Int.self)
        #expect(total == watches.count * changesPerWatch, "every change was recorded")
        let badge = try await server.badge(key: key)
        #expect(badge.count == unread)
        let sequences = try server.badgeEvents(userID: userID).compactMap { $0["sequence"] as? Int }
        #expect(sequences == Array(1...badge.sequence), "one event per change of the count, sequence without gaps or repeats")
    }

    private struct QueuedBadge {
        let count: Int
        let sequence: Int
        let attempts: Int
        /// Seconds between queuing and the first attempt.
        let delay: Double
    }

    private func deliveries(_ server: APITestServer, webhookID: String) throws -> [QueuedBadge] {
        try server.application.database.query(
            """
            SELECT coalesce((e.data->>'count')::int, -1) AS count, coalesce((e.data->>'sequence')::int, -1) AS sequence,
                   extract(epoch FROM d.next_attempt_at - d.created_at)::float8 AS delay, d.attempt_count
            FROM deliveries d JOIN events e ON e.id = d.event_id
            WHERE d.webhook_id = \(webhookID)::uuid AND d.status = 'pending'
            ORDER BY d.created_at
            """
        ).map { row in
            QueuedBadge(
                count: try row.decode("count"),
                sequence: try row.decode("sequence"),
                attempts: try row.decode("attempt_count"),
                delay: try row.decode("delay")
            )
        }
    }

    private func createWebhook(_ server: APITestServer, token: String, types: [String], global: Bool = false) async throws -> String {
        let path = global ? "/v1/admin/webhooks" : "/v1/webhooks"
        let response = try await server.send("POST", path, token: token, json: ["url": "https://93.184.215.14/hook", "event_types": types])
        #expect(response.status == 201, "\(response.text)")
        return try #require(try response.object()["id"] as? String)
    }
}

/// Errors collected from writer threads.
private final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []

    func add(_ error: any Error) {
        lock.withLock { errors.append(error) }
    }

    var first: (any Error)? {
        lock.withLock { errors.first }
    }
}
