import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsDomain
import TidingsPostgres
import TidingsTestSupport

/// `GET /v1/changes`: one request catches an app up on every watch.
@Suite struct SyncFeedAPITests {
    @Test func oneCallReturnsEveryWatchsChangesInOrderWithTheBadge() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(3)
        let first = try #require(try server.recordChange(watchID: watches[2], text: "c1"))
        let second = try #require(try server.recordChange(watchID: watches[0], text: "a1"))
        let third = try #require(try server.recordChange(watchID: watches[2], text: "c2"))

        let response = try await server.send("GET", "/v1/changes", token: key)
        #expect(response.status == 200, "\(response.text)")
        let body = try response.object()
        let items = try #require(body["data"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == [first, second, third])
        #expect(items.map { $0["watch_id"] as? String } == [watches[2], watches[0], watches[2]])
        let item = items[1]
        #expect(item["watch_url"] as? String == "https://93.184.215.14/page-0")
        #expect((item["watch_name"] as? String)?.isEmpty == false)
        #expect(item["read"] as? Bool == false)
        #expect((item["diff"] as? String)?.contains("+a1") == true)
        #expect((item["new_hash"] as? String) == SHA256.hash("a1").hex)
        #expect(item["detected_at"] is String)
        let cursors = items.compactMap { ($0["cursor"] as? String).flatMap(Int64.init) }
        #expect(cursors.count == 3 && cursors == cursors.sorted() && Set(cursors).count == 3)
        let badge = try #require(body["badge"] as? [String: Any])
        #expect(badge["count"] as? Int == 3)
        #expect(badge["sequence"] as? Int == 3)
        // Read to the end, the cursor is the user's newest position, past
        // the last change (its badge.updated and watch.changed events).
        let next = try #require(body["next_cursor"] as? String)
        #expect(try #require(Int64(next)) > cursors[2])

        // Nothing new: data is empty, the cursor stays where it was and
        // the badge is the same (answered from the badge row alone).
        let idle = try await server.send("GET", "/v1/changes?after=\(next)", token: key).object()
        #expect((idle["data"] as? [Any])?.isEmpty == true)
        #expect(idle["next_cursor"] as? String == next)
        #expect((idle["badge"] as? [String: Any])?["count"] as? Int == 3)
        #expect((idle["badge"] as? [String: Any])?["sequence"] as? Int == 3)
        #expect((idle["badge"] as? [String: Any])?["updated_at"] as? String == badge["updated_at"] as? String)

        // One more change: exactly it, nothing repeated.
        let fourth = try #require(try server.recordChange(watchID: watches[1], text: "b1"))
        let resumed = try await server.send("GET", "/v1/changes?after=\(next)", token: key).object()
        #expect((resumed["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [fourth])
        #expect((resumed["badge"] as? [String: Any])?["count"] as? Int == 4)
    }

    @Test func pagesFollowTheCursorWithoutGapsOrRepeats() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(2)
        var expected: [String] = []
        for version in 1...7 {
            expected.append(try #require(try server.recordChange(watchID: watches[version % 2], text: "v\(version)")))
        }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = "/v1/changes?limit=3" + (cursor.map { "&after=\($0)" } ?? "")
            let body = try await server.send("GET", query, token: key).object()
            let items = try #require(body["data"] as? [[String: Any]])
            seen += items.compactMap { $0["id"] as? String }
            cursor = try #require(body["next_cursor"] as? String)
            pages += 1
            if items.count < 3 { break }
        } while pages < 10
        #expect(seen == expected)
        #expect(pages == 3)
    }

    @Test func filtersByUnreadAndByWatch() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(2)
        let readOne = try #require(try server.recordChange(watchID: watches[0], text: "a1"))
        let unreadOne = try #require(try server.recordChange(watchID: watches[1], text: "b1"))
        let read = try await server.send("POST", "/v1/watches/\(watches[0])/read", token: key)
        #expect(read.status == 200)

        let unread = try await server.send("GET", "/v1/changes?unread=true", token: key).items()
        #expect(unread.map { $0["id"] as? String } == [unreadOne])
        let all = try await server.send("GET", "/v1/changes?unread=false", token: key).items()
        #expect(all.map { $0["id"] as? String } == [readOne, unreadOne])
        #expect(all.map { $0["read"] as? Bool } == [true, false])
        let one = try await server.send("GET", "/v1/changes?watch_id=\(watches[0])", token: key).items()
        #expect(one.map { $0["id"] as? String } == [readOne])
        let none = try await server.send("GET", "/v1/changes?watch_id=\(watches[0])&unread=true", token: key).items()
        #expect(none.isEmpty)
    }

    @Test func anotherUsersChangesAndWatchesAreInvisible() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, victimKey, victimWatches) = try await server.userWithWatches(1)
        try server.recordChange(watchID: victimWatches[0], text: "secret")
        let (_, key, _) = try await server.userWithWatches(1)

        #expect(try await server.send("GET", "/v1/changes", token: key).items().isEmpty)
        let foreign = try await server.send("GET", "/v1/changes?watch_id=\(victimWatches[0])", token: key)
        #expect(foreign.status == 404)
        #expect(foreign.isProblem)
        #expect(try await server.send("GET", "/v1/changes", token: victimKey).items().count == 1)
        #expect(try await server.send("GET", "/v1/changes").status == 401)
    }

    @Test(arguments: [
        ("after=abc", "after"), ("after=-1", "after"), ("after=1e3", "after"), ("after=%201", "after"),
        ("after=", "after"), ("after=99999999999999999999", "after"), ("after=0x10", "after"),
        ("after=\(String(repeating: "9", count: 5000))", "after"),
        ("limit=0", "limit"), ("limit=201", "limit"), ("limit=ten", "limit"), ("limit=-5", "limit"),
        ("unread=yes", "unread"), ("unread=", "unread"), ("unread=TRUE", "unread"),
        ("watch_id=42", "watch_id"), ("watch_id=", "watch_id"),
    ])
    func malformedParametersAreRefusedByName(query: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send("GET", "/v1/changes?\(query)", token: key)
        #expect(response.status == 400, "\(query): \(response.text)")
        #expect(response.isProblem)
        #expect(try response.object()["field"] as? String == field, "\(query)")
    }

    @Test func aCursorAheadOfTheServerOrBehindRetentionIsGoneNeverAGap() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key, watches) = try await server.userWithWatches(1)
        try server.recordChange(watchID: watches[0], text: "v1")
        let early = try #require(try await server.send("GET", "/v1/changes", token: key).object()["next_cursor"] as? String)

        let ahead = try await server.send("GET", "/v1/changes?after=\(Int64.max)", token: key)
        #expect(ahead.status == 410, "\(ahead.text)")
        #expect(ahead.isProblem)
        #expect(try ahead.object()["field"] as? String == "after")

        // Retention prunes the user's early events: positions up to them
        // may be gone, so the early cursor must resync.
        try server.recordChange(watchID: watches[0], text: "v2")
        _ = try server.application.database.query(
            "UPDATE events SET created_at = now() - interval '40 days' WHERE user_id = \(userID)::uuid")
        let pruned = try DeliveryStore(database: server.application.database).pruneEvents(olderThan: .seconds(30 * 86_400))
        #expect(pruned >= 4)
        let gone = try await server.send("GET", "/v1/changes?after=\(early)", token: key)
        #expect(gone.status == 410, "\(gone.text)")
        #expect(try gone.object()["detail"] as? String != nil)
        // Without a cursor every change still kept comes back.
        let resync = try await server.send("GET", "/v1/changes", token: key).object()
        #expect((resync["data"] as? [Any])?.count == 2)
        let fresh = try #require(resync["next_cursor"] as? String)
        #expect(try await server.send("GET", "/v1/changes?after=\(fresh)", token: key).status == 200)
    }

    /// An up-to-date cursor is answered from the badge row; a watch filter
    /// takes the feed's statement. For a user with one watch both must
    /// answer alike, whatever the badge did since (read-all moves the
    /// user's newest position with its badge.updated).
    @Test func anUpToDateAnswerAgreesWithTheFeedStatement() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        try server.recordChange(watchID: watches[0], text: "v1")
        for step in ["changed", "read all"] {
            if step == "read all" {
                #expect(try await server.send("POST", "/v1/badge/read-all", token: key).status == 200)
            }
            let cursor = try #require(try await server.send("GET", "/v1/changes", token: key).object()["next_cursor"] as? String)
            let upToDate = try await server.send("GET", "/v1/changes?after=\(cursor)", token: key)
            let filtered = try await server.send("GET", "/v1/changes?after=\(cursor)&watch_id=\(watches[0])", token: key)
            #expect(upToDate.status == 200 && filtered.status == 200, "\(step)")
            #expect(upToDate.text == filtered.text, "\(step)")
            #expect(try upToDate.object()["next_cursor"] as? String == cursor, "\(step)")
        }
    }

    /// The race a global id cannot survive: a change that draws its place
    /// first but commits after a reader has moved past later ones. Here
    /// the second writer of the same user waits for the first one's badge
    /// lock, so nothing can commit behind a cursor; another user's writer
    /// does not wait at all.
    @Test func aChangeCommittingLateIsNeverSkipped() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(2)
        let (_, otherKey, otherWatches) = try await server.userWithWatches(1)
        let start = try #require(try await server.send("GET", "/v1/changes", token: key).object()["next_cursor"] as? String)
        let database = server.application.database

        let drawn = DispatchSemaphore(value: 0)
        let commit = DispatchSemaphore(value: 0)
        defer { commit.signal() }
        let slowWatch = watches[0]
        let slow = Thread {
            _ = try? database.withTransaction { connection in
                let hash = SHA256.hash("slow").hex
                _ = try connection.query(
                    """
                    SELECT * FROM record_changes(ARRAY[\(slowWatch)::uuid], ARRAY['changed'], ARRAY[\(hash)::text], ARRAY['slow'],
                        ARRAY[false], ARRAY['+slow'], ARRAY[200], ARRAY[4::bigint])
                    """)
                drawn.signal()
                commit.wait()
            }
        }
        slow.start()
        drawn.wait()

        // The fast writer of the same user waits on the badge lock.
        let fastWatch = watches[1]
        let fast = Task.detached { try server.recordChange(watchID: fastWatch, text: "fast") }
        let fastWaits = try await eventually(timeout: .seconds(20), every: .milliseconds(10)) {
            try database.query(
                """
                SELECT count(*) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%record_changes%'
                """)[0].decode("n", as: Int.self) > 0
        }
        try #require(fastWaits, "the second writer never waited for the first")
        // Another user is not held up by it.
        #expect(try server.recordChange(watchID: otherWatches[0], text: "elsewhere") != nil)
        #expect(try await server.send("GET", "/v1/changes", token: otherKey).items().count == 1)

        // A reader in the meantime sees neither, and keeps its cursor.
        let during = try await server.send("GET", "/v1/changes?after=\(start)", token: key).object()
        #expect((during["data"] as? [Any])?.isEmpty == true)
        #expect(during["next_cursor"] as? String == start)

        commit.signal()
        let fastID = try #require(try await fast.value)
        let after = try await server.send("GET", "/v1/changes?after=\(start)", token: key).items()
        #expect(after.count == 2)
        #expect(after.map { $0["watch_id"] as? String } == [slowWatch, fastWatch])
        #expect(after.last?["id"] as? String == fastID)
    }

    @Test func everyChangeAndEventTakesTheNextPositionOfItsUser() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, _, watches) = try await server.userWithWatches(2)
        try server.recordChange(watchID: watches[0], text: "a1")
        try server.recordChange(watchID: watches[1], text: "b1")
        let database = server.application.database
        let changePositions = try database.query(
            "SELECT user_position FROM changes WHERE user_id = \(userID)::uuid ORDER BY user_position"
        ).map { try $0.decode("user_position", as: Int64.self) }
        let events = try database.query(
            "SELECT type, user_position, data->>'cursor' AS cursor FROM events WHERE user_id = \(userID)::uuid ORDER BY user_position")
        let eventPositions = try events.map { try $0.decode("user_position", as: Int64.self) }
        // Each change is followed by its badge.updated and watch.changed.
        #expect((changePositions + eventPositions).sorted() == Array(1...6))
        #expect(
            try events.map { try $0.decode("type", as: String.self) }
                == ["badge.updated", "watch.changed", "badge.updated", "watch.changed"])
        // watch.changed names its change's position, the feed cursor.
        let cursors = try events.compactMap { try $0.decode("cursor", as: String?.self) }
        #expect(cursors == changePositions.map(String.init))
        let head = try database.query("SELECT last_position FROM badges WHERE user_id = \(userID)::uuid")[0]
            .decode("last_position", as: Int64.self)
        #expect(head == 6)
    }
}
