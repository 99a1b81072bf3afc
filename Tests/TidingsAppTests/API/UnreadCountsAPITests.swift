import Foundation
import Testing
import TidingsApp
import TidingsPostgres
import TidingsTestSupport

@Suite struct UnreadCountsAPITests {
    @Test func changesRaiseTheWatchAndTheBadgeAndEachCountChangeIsAnnounced() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key, watches) = try await server.userWithWatches(2)
        #expect(try await server.badge(key: key) == (0, 0))

        for version in 1...3 { try #require(try server.recordChange(watchID: watches[0], text: "first v\(version)") != nil) }
        try #require(try server.recordChange(watchID: watches[1], text: "second v1") != nil)
        #expect(try server.recordChange(watchID: watches[1], text: "second v1") == nil, "the same content again is no change")
        try server.expectCountsConsistent()

        let first = try await server.send("GET", "/v1/watches/\(watches[0])", token: key).object()
        #expect(first["unread_count"] as? Int == 3)
        #expect(try await server.badge(key: key) == (4, 4))
        let sequences = try server.badgeEvents(userID: userID).compactMap { $0["sequence"] as? Int }
        #expect(sequences == [1, 2, 3, 4])
    }

    @Test func readingAWatchLowersItsCountAndTheBadgeOnly() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key, watches) = try await server.userWithWatches(2)
        try server.recordChange(watchID: watches[0], text: "a1")
        try server.recordChange(watchID: watches[0], text: "a2")
        try server.recordChange(watchID: watches[1], text: "b1")

        let read = try await server.send("POST", "/v1/watches/\(watches[0])/read", token: key)
        #expect(read.status == 200, "\(read.text)")
        let receipt = try read.object()
        #expect(receipt["watch_id"] as? String == watches[0])
        #expect(receipt["unread_count"] as? Int == 0)
        let badge = try #require(receipt["badge"] as? [String: Any])
        #expect(badge["count"] as? Int == 1)
        #expect(badge["sequence"] as? Int == 4)
        try server.expectCountsConsistent()

        // Reading again changes nothing and announces nothing.
        let again = try await server.send("POST", "/v1/watches/\(watches[0])/read", token: key).object()
        #expect((again["badge"] as? [String: Any])?["sequence"] as? Int == 4)
        #expect(try server.badgeEvents(userID: userID).count == 4)
        let other = try await server.send("GET", "/v1/watches/\(watches[1])", token: key).object()
        #expect(other["unread_count"] as? Int == 1)
    }

    @Test func aReadUpToAChangeLeavesTheChangeThatRacedItUnread() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(2)
        let seen = try #require(try server.recordChange(watchID: watches[0], text: "v1"))
        // Detected after the device fetched the list, before its read arrives.
        let raced = try #require(try server.recordChange(watchID: watches[0], text: "v2"))

        let read = try await server.send("POST", "/v1/watches/\(watches[0])/read", token: key, json: ["up_to_change_id": seen])
        #expect(read.status == 200, "\(read.text)")
        #expect(try read.object()["unread_count"] as? Int == 1)
        let history = try await server.send("GET", "/v1/watches/\(watches[0])/changes", token: key).items()
        #expect(history.map { $0["id"] as? String } == [seen, raced].map(Optional.some))
        #expect(history.map { $0["read"] as? Bool } == [true, false])
        try server.expectCountsConsistent()

        // A change of another watch, or none at all, is refused by name and reads nothing.
        let foreign = try #require(try server.recordChange(watchID: watches[1], text: "w2"))
        for bogus: Any in [foreign, UUID().uuidString, NSNull()] {
            let refused = try await server.send("POST", "/v1/watches/\(watches[0])/read", token: key, json: ["up_to_change_id": bogus])
            #expect(refused.status == 422)
            #expect(refused.isProblem)
            #expect(try refused.object()["field"] as? String == "up_to_change_id")
        }
        #expect(try await server.badge(key: key).count == 2)
    }

    @Test func readAllClearsEveryWatchInOneBadgeChange() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key, watches) = try await server.userWithWatches(3)
        for watch in watches { try server.recordChange(watchID: watch, text: "new") }
        let eventsBefore = try server.badgeEvents(userID: userID).count

        let response = try await server.send("POST", "/v1/badge/read-all", token: key)
        #expect(response.status == 200, "\(response.text)")
        let body = try response.object()
        #expect(body["count"] as? Int == 0)
        #expect(body["sequence"] as? Int == 4)
        let events = try server.badgeEvents(userID: userID)
        #expect(events.count == eventsBefore + 1)
        #expect(events.last?["count"] as? Int == 0)
        try server.expectCountsConsistent()

        #expect(try await server.send("POST", "/v1/badge/read-all", token: key).object()["sequence"] as? Int == 4)
        #expect(try await server.send("POST", "/v1/badge/read-all", token: APITestServer.adminToken).status == 403)
    }

    @Test func pausingOrDeletingAWatchTakesItsUnreadChangesOutOfTheTotal() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(3)
        for watch in watches {
            try server.recordChange(watchID: watch, text: "one")
            try server.recordChange(watchID: watch, text: "two")
        }
        #expect(try await server.badge(key: key).count == 6)

        let paused = try await server.send("POST", "/v1/watches/\(watches[0])/pause", token: key).object()
        #expect(paused["unread_count"] as? Int == 0)
        #expect(try await server.badge(key: key).count == 4)
        // A paused watch keeps its hash current but reports nothing.
        #expect(try server.recordChange(watchID: watches[0], text: "while paused") == nil)
        #expect(try await server.send("DELETE", "/v1/watches/\(watches[1])", token: key).status == 204)
        #expect(try await server.badge(key: key).count == 2)
        try server.expectCountsConsistent()
        #expect(try await server.send("POST", "/v1/watches/\(watches[0])/resume", token: key).status == 200)
        #expect(try await server.badge(key: key).count == 2)
    }

    @Test func historyListsChangesOldestFirstWithoutReadingThem() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        var ids: [String] = []
        for version in 1...5 { ids.append(try #require(try server.recordChange(watchID: watches[0], text: "version \(version)"))) }

        var seen: [[String: Any]] = []
        var path = "/v1/watches/\(watches[0])/changes?limit=2"
        while true {
            let page = try await server.send("GET", path, token: key)
            #expect(page.status == 200, "\(page.text)")
            seen += try page.items()
            guard let cursor = try page.object()["next_cursor"] as? String else { break }
            path = "/v1/watches/\(watches[0])/changes?limit=2&cursor=\(cursor)"
        }
        #expect(seen.map { $0["id"] as? String } == ids.map(Optional.some))
        let last = try #require(seen.last)
        #expect(last["previous_hash"] as? String == seen[3]["new_hash"] as? String)
        #expect(last["diff"] as? String == "-old\n+version 5")
        #expect(last["http_status"] as? Int == 200)
        #expect(last["read"] as? Bool == false)
        #expect(last["read_at"] is NSNull)
        #expect(try await server.badge(key: key).count == 5, "listing must not read")
    }

    @Test func anotherUsersWatchHistoryAndReadsAreNotFound() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, _, watches) = try await server.userWithWatches(1)
        try server.recordChange(watchID: watches[0], text: "private")
        let (_, intruder) = try await server.createUser()

        #expect(try await server.send("GET", "/v1/watches/\(watches[0])/changes", token: intruder).status == 404)
        #expect(try await server.send("POST", "/v1/watches/\(watches[0])/read", token: intruder).status == 404)
        #expect(try await server.send("GET", "/v1/watches/not-a-uuid/changes", token: intruder).status == 400)
        #expect(
            try server.application.database.query("SELECT count(*) AS n FROM changes WHERE read_at IS NOT NULL")[0].decode(
                "n", as: Int.self) == 0)
    }

    @Test func malformedReadBodiesAreRefusedByName() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        try server.recordChange(watchID: watches[0], text: "unread")
        let path = "/v1/watches/\(watches[0])/read"
        let cases: [(json: String, status: Int)] = [
            (#"{"up_to_change_id": "nope"}"#, 422),
            (#"{"up_to_change_id": 7}"#, 422),
            (#"{"surprise": true}"#, 422),
            (#"{"up_to_change_id": "#, 400),
        ]
        for (json, status) in cases {
            let response = try await server.send("POST", path, token: key, rawBody: Array(json.utf8))
            #expect(response.status == status, "\(json): \(response.text)")
            #expect(response.isProblem)
        }
        #expect(try await server.send("POST", path, token: key, rawBody: Array("{}".utf8), contentType: "text/plain").status == 415)
        #expect(try await server.badge(key: key).count == 1, "no refused read may read anything")
    }

    /// A read that raced the watch's deletion trapped the whole process:
    /// the watch was seen to exist, the DELETE committed, and the receipt
    /// query (`...[0]`) found no row. Now the read answers 404.
    @Test func aReadRacingTheWatchDeletionIsNotFoundNotACrash() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        try server.recordChange(watchID: watches[0], text: "unread")
        let database = server.application.database
        let deleted = DispatchSemaphore(value: 0)
        let commit = DispatchSemaphore(value: 0)
        // Runs before the server's shutdown: if a check below fails, the
        // read's HTTP thread waits on the deleting transaction, which waits
        // for this, and stopping the server would wait for that thread.
        defer { commit.signal() }
        let watchID = watches[0]
        // Deletes the watch (and, by cascade, its changes) in a transaction
        // that stays open until the read is waiting on those rows.
        let deleter = Thread {
            _ = try? database.withTransaction { connection in
                try connection.execute("DELETE FROM watches WHERE id = \(watchID)::uuid")
                deleted.signal()
                commit.wait()
            }
            deleted.signal()
        }
        deleter.start()
        deleted.wait()
        async let read = server.send("POST", "/v1/watches/\(watchID)/read", token: key)
        // The read saw the watch (the delete is not committed) and now
        // waits for the change rows the delete holds.
        let readWaits = try await eventually(timeout: .seconds(20), every: .milliseconds(10)) {
            try database.query(
                """
                SELECT count(*) AS n FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE changes SET read_at%'
                """)[0].decode("n", as: Int.self) > 0
        }
        try #require(readWaits, "the read never waited for the deleting transaction")
        commit.signal()
        let response = try await read
        deleted.wait()
        #expect(response.status == 404, "\(response.text)")
        #expect(response.isProblem)
    }
}
