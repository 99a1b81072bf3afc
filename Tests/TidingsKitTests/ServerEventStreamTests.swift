import Foundation
import Testing
import TidingsKit
import TidingsTestSupport

/// `events()` against a real Tidings that restarts under it.
@Suite struct ServerEventStreamTests {
    @Test func aStreamHearsChangesLiveAndResumesAfterARestartWithNothingLost() async throws {
        let server = try KitTestServer()
        defer { server.stop() }
        let origin = try MutableOrigin("v1")
        let key = try await server.createUserKey()
        let client = TidingsClient(baseURL: server.baseURL, apiKey: key)
        let watch = try await client.createWatch(WatchDraft(url: origin.url))
        #expect(try await client.checkWatch(id: watch.id).result == .baseline)
        // From the feed's position: nothing between now and the connection is missed.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let position = try await SyncEngine(client: client, store: FileCursorStore(url: directory.appendingPathComponent("c"))).sync()
            .cursor

        let collector = EventCollector(client.events(after: position))
        defer { collector.cancel() }
        origin.set("v2")
        let live = try #require(try await client.checkWatch(id: watch.id).changeID)
        #expect(try await eventually { collector.changeIDs == [live] }, "\(collector.events.map(\.type))")
        #expect(try await eventually { collector.events.contains { $0.badgeCount == 1 } })

        // The server goes away; while none runs, another process records a
        // change (as another replica would); then the server is back.
        var missed = ""
        try await server.restart {
            let writer = try KitTestServer(databaseURL: server.databaseURL)
            defer { writer.stop() }
            origin.set("v3")
            missed = try #require(try await TidingsClient(baseURL: writer.baseURL, apiKey: key).checkWatch(id: watch.id).changeID)
        }
        #expect(try await eventually { collector.changeIDs.count >= 2 }, "\(collector.events.map(\.type)) end: \(collector.end ?? "-")")
        #expect(collector.changeIDs == [live, missed], "nothing lost, nothing repeated")
        let ids = collector.events.compactMap { $0.id.flatMap(Int64.init) }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count && ids.count == collector.events.count)
        #expect(collector.events.last { $0.type == .badgeUpdated }?.badgeCount == 2)
        #expect(collector.end == nil, "the stream reconnected by itself")

        // Cancelling the task ends the stream.
        collector.cancel()
        await collector.finished()
        #expect(collector.end == "finished")
    }
}
