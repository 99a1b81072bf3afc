import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// `GET /v1/events`: a running app hears its user's events as they commit,
/// over a real connection read as EventSource reads it.
@Suite struct EventStreamAPITests {
    /// Opens a stream as `GET /v1/events<query>`; returns the reader after
    /// the response head, with the `retry:` hint read.
    static func open(
        _ server: APITestServer, key: String?, query: String = "", headers: [(String, String)] = [],
        expectRetry: Bool = true
    ) throws -> (ServerSentEventReader, RawHTTPConnection) {
        let connection = try RawHTTPConnection(port: server.application.port, receiveTimeoutSeconds: 20)
        var head = "GET /v1/events\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try connection.send(head + "\r\n")
        let response = try connection.readHead()
        try #require(response.status == 200, "status \(response.status)")
        #expect(response.headers.values(for: "Content-Type").first == "text/event-stream")
        #expect(response.headers.values(for: "Cache-Control").first == "no-cache")
        let reader = ServerSentEventReader(connection)
        if expectRetry {
            let hint = try #require(try reader.next())
            #expect(hint.retry == "3000")
        }
        return (reader, connection)
    }

    static func json(_ text: String?) throws -> [String: Any] {
        let text = try #require(text)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func eventsArriveAsTheyCommitInTheWebhookShape() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        let (reader, _) = try Self.open(server, key: key)

        let changeID = try #require(try server.recordChange(watchID: watches[0], text: "v1"))
        let badge = try #require(try reader.nextEvent())
        #expect(badge.event == "badge.updated")
        let badgeBody = try Self.json(badge.data)
        #expect(badgeBody["type"] as? String == "badge.updated")
        #expect(badgeBody["timestamp"] is String)
        #expect((badgeBody["data"] as? [String: Any])?["count"] as? Int == 1)
        let changed = try #require(try reader.nextEvent())
        #expect(changed.event == "watch.changed")
        let data = try #require(try Self.json(changed.data)["data"] as? [String: Any])
        #expect(data["change_id"] as? String == changeID)
        #expect(data["watch_id"] as? String == watches[0])
        // Ids are the user's order: the feed's cursor means the same thing.
        let badgeID = try #require(badge.id.flatMap(Int64.init))
        let changedID = try #require(changed.id.flatMap(Int64.init))
        #expect(changedID == badgeID + 1)
        #expect(data["cursor"] as? String == String(badgeID - 1), "the change comes just before its events")
    }

    @Test func lastEventIDResumesWithNothingLostAndNothingRepeated() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        var lastID: String
        do {
            let (reader, _) = try Self.open(server, key: key)
            try server.recordChange(watchID: watches[0], text: "v1")
            _ = try #require(try reader.nextEvent())
            lastID = try #require(try reader.nextEvent()?.id)
        }
        // Disconnected: two more changes, four events.
        let missed = [try server.recordChange(watchID: watches[0], text: "v2"), try server.recordChange(watchID: watches[0], text: "v3")]
        let (reader, _) = try Self.open(server, key: key, headers: [("Last-Event-ID", lastID)])
        var received: [ServerSentEventReader.Message] = []
        for _ in 0..<4 { received.append(try #require(try reader.nextEvent())) }
        #expect(received.map(\.event) == ["badge.updated", "watch.changed", "badge.updated", "watch.changed"])
        let ids = received.compactMap { $0.id.flatMap(Int64.init) }
        #expect(ids.first == Int64(lastID)! + 2, "the next event after the resumed one is the next change's badge")
        #expect(ids == ids.sorted() && Set(ids).count == 4)
        let changes = try received.filter { $0.event == "watch.changed" }.map {
            try #require(try Self.json($0.data)["data"] as? [String: Any])["change_id"] as? String
        }
        #expect(changes == missed)
        // ?after= works the same on a first connection.
        let (again, _) = try Self.open(server, key: key, query: "?after=\(lastID)&types=watch.changed")
        #expect(try again.nextEvent()?.id == received[1].id)
        #expect(try again.nextEvent()?.id == received[3].id)
    }

    @Test func theTypesFilterSendsOnlyThoseTypes() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        let (reader, _) = try Self.open(server, key: key, query: "?types=watch.changed,watch.failing")
        try server.recordChange(watchID: watches[0], text: "v1")
        try server.recordChange(watchID: watches[0], text: "v2")
        #expect(try reader.nextEvent()?.event == "watch.changed")
        #expect(try reader.nextEvent()?.event == "watch.changed")
    }

    @Test func aPositionPastRetentionOrAheadStartsWithAResyncEvent() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key, watches) = try await server.userWithWatches(1)
        try server.recordChange(watchID: watches[0], text: "v1")
        try server.recordChange(watchID: watches[0], text: "v2")
        _ = try server.application.database.query(
            "UPDATE events SET created_at = now() - interval '40 days' WHERE user_id = \(userID)::uuid")
        #expect(try DeliveryStore(database: server.application.database).pruneEvents(olderThan: .seconds(30 * 86_400)) == 4)

        for (position, reason) in [("1", "cursor_expired"), (String(Int64.max), "cursor_unknown")] {
            let (reader, _) = try Self.open(server, key: key, headers: [("Last-Event-ID", position)])
            let resync = try #require(try reader.nextEvent())
            #expect(resync.event == "stream.resync")
            #expect((try Self.json(resync.data)["data"] as? [String: Any])?["reason"] as? String == reason)
            let newest = try server.application.database.query(
                "SELECT last_position FROM badges WHERE user_id = \(userID)::uuid")[0].decode("last_position", as: Int64.self)
            #expect(resync.id == String(newest), "the id to resume from is the newest position")
            // Live from there on.
            try server.recordChange(watchID: watches[0], text: "v\(position.count + 3)")
            #expect(try reader.nextEvent()?.event == "badge.updated")
        }
    }

    @Test func aBrowserTokenOpensOneStreamOnceAndIsNeverLogged() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        let issued = try await server.send("POST", "/v1/events/tokens", token: key)
        #expect(issued.status == 201, "\(issued.text)")
        let token = try #require(try issued.object()["token"] as? String)
        #expect(token.hasPrefix("tds_"))
        #expect(try issued.object()["expires_at"] is String)

        let (reader, _) = try Self.open(server, key: nil, query: "?token=\(token)")
        try server.recordChange(watchID: watches[0], text: "v1")
        #expect(try reader.nextEvent()?.event == "badge.updated")

        for bogus in [token, "tds_short", String(repeating: "x", count: 5000), ""] {
            let refused = try await server.send("GET", "/v1/events?token=\(bogus)")
            #expect(refused.status == 401, "\(bogus.prefix(10)): \(refused.text)")
            #expect(refused.isProblem)
        }
        #expect(!server.logSink.lines.contains { $0.contains(token) || $0.contains(String(token.dropFirst(4))) })
        #expect(try await server.send("POST", "/v1/events/tokens").status == 401)
    }

    @Test func eachUserHasItsOwnStreamsAndItsOwnLimit() async throws {
        let server = try APITestServer { $0.maxStreamsPerUser = 2 }
        defer { server.stop() }
        let (_, key, _) = try await server.userWithWatches(1)
        let (_, otherKey, otherWatches) = try await server.userWithWatches(1)
        let first = try Self.open(server, key: key)
        let second = try Self.open(server, key: key)
        let third = try await server.send("GET", "/v1/events", token: key)
        #expect(third.status == 429, "\(third.text)")
        #expect(try third.object()["limit"] as? String == "streams_per_user")
        #expect(third.header("Retry-After") != nil)

        // The other user's stream opens, and hears only its own events.
        let (other, _) = try Self.open(server, key: otherKey)
        try server.recordChange(watchID: otherWatches[0], text: "theirs")
        #expect(try other.nextEvent()?.event == "badge.updated")
        first.1.setReceiveTimeout(milliseconds: 500)
        #expect(throws: (any Error).self) { try first.0.nextEvent() }
        _ = second
    }

    @Test func streamsWhoseClientsLeftDoNotKeepTheUserOut() async throws {
        let server = try APITestServer { $0.maxStreamsPerUser = 2 }
        defer { server.stop() }
        let (_, key, watches) = try await server.userWithWatches(1)
        for _ in 0..<3 {
            // Two streams whose clients vanish without a word (a phone that
            // lost its network): their connections wait, unpolled.
            do {
                _ = try Self.open(server, key: key)
                _ = try Self.open(server, key: key)
            }
        }
        let (reader, _) = try Self.open(server, key: key)
        try server.recordChange(watchID: watches[0], text: "after the reconnects")
        #expect(try reader.nextEvent()?.event == "badge.updated")
    }

    @Test func anEventCommittedThroughAnotherReplicaReachesTheStream() async throws {
        let first = try APITestServer()
        defer { first.stop() }
        let second = try APITestServer(sharingDatabaseWith: first)
        defer { second.stop() }
        let (_, key, watches) = try await first.userWithWatches(1)
        let (reader, _) = try Self.open(second, key: key)
        let changeID = try #require(try first.recordChange(watchID: watches[0], text: "elsewhere"))
        _ = try #require(try reader.nextEvent())
        let changed = try #require(try reader.nextEvent())
        #expect((try Self.json(changed.data)["data"] as? [String: Any])?["change_id"] as? String == changeID)
    }

    @Test func quietStreamsGetHeartbeatsAndShutdownEndsThemCleanly() async throws {
        let server = try APITestServer { $0.streamHeartbeat = .milliseconds(300) }
        let (_, key, _) = try await server.userWithWatches(1)
        let (reader, _) = try Self.open(server, key: key)
        #expect(try reader.next()?.isComment == true)
        #expect(try reader.next()?.isComment == true)
        server.stop()
        // Whatever heartbeats were in flight, then the last chunk: a clean end.
        while let message = try reader.next() {
            #expect(message.isComment)
        }
    }

    @Test(arguments: [
        ("", [("Last-Event-ID", "abc")], "Last-Event-ID"),
        ("", [("Last-Event-ID", "-1")], "Last-Event-ID"),
        ("", [("Last-Event-ID", "99999999999999999999")], "Last-Event-ID"),
        ("", [("Last-Event-ID", String(repeating: "7", count: 4000))], "Last-Event-ID"),
        ("?after=1.5", [], "after"),
        ("?types=watch.changed,nonsense", [], "types"),
        ("?types=", [], "types"),
    ])
    func malformedPositionsAndTypesAreRefusedByName(query: String, headers: [(String, String)], field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let connection = try RawHTTPConnection(port: server.application.port)
        let response = try connection.request(
            "GET", "/v1/events\(query)", headers: [("Authorization", "Bearer \(key)")] + headers)
        #expect(response.status == 400, "\(query) \(headers): \(response.text)")
        #expect(response.problem?.field == field)
    }
}
