import Foundation
import Testing
import TidingsKit
import TidingsTestSupport

/// What a `SyncEngine` does when the feed fails, answers slowly or forgets
/// a cursor, scripted by a fake feed.
@Suite struct SyncEngineTests {
    static func engine(_ feed: FakeFeedServer, pageSize: Int = 2) -> (SyncEngine, FileCursorStore) {
        let store = FileCursorStore(url: FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)"))
        let client = TidingsClient(baseURL: feed.baseURL, apiKey: "tdg_test")
        return (SyncEngine(client: client, store: store, pageSize: pageSize), store)
    }

    @Test func pagesAreFollowedToTheEndAndTheEndIsSaved() async throws {
        let feed = try FakeFeedServer()
        feed.state.withLock { $0.changes = 5 }
        let (engine, store) = Self.engine(feed)
        let result = try await engine.sync()
        #expect(result.changes.map(\.cursor) == ["1", "2", "3", "4", "5"])
        #expect(result.cursor == "5" && result.badge.count == 5)
        #expect(try await store.loadCursor() == "5")
        #expect(feed.state.value.requests.count == 3)
        #expect(try await engine.sync().changes.isEmpty)
    }

    @Test func aSyncFailingPartWayLosesAndRepeatsNothing() async throws {
        let feed = try FakeFeedServer()
        feed.state.withLock {
            $0.changes = 3
            $0.failNext = 1
            $0.failAfterFirstPage = true
        }
        let (engine, store) = Self.engine(feed)
        await #expect { try await engine.sync() } throws: { ($0 as? TidingsError)?.problem?.status == 503 }
        #expect(try await store.loadCursor() == nil, "the first page alone did not move the cursor")

        let retried = try await engine.sync()
        #expect(retried.changes.map(\.id) == (1...3).map(FakeFeedServer.changeID))
        feed.state.withLock { $0.changes = 4 }
        #expect(try await engine.sync().changes.map(\.cursor) == ["4"])
    }

    @Test func callersAtOnceShareOneSync() async throws {
        let feed = try FakeFeedServer()
        feed.state.withLock {
            $0.changes = 1
            $0.delay = 0.5
        }
        let (engine, _) = Self.engine(feed, pageSize: 10)
        let results = try await withThrowingTaskGroup(of: SyncResult.self) { group in
            for _ in 0..<8 { group.addTask { try await engine.sync() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(feed.state.value.requests.count == 1, "\(feed.state.value.requests)")
        #expect(results.count == 8 && Set(results).count == 1)
        #expect(results[0].changes.map(\.cursor) == ["1"])
    }

    @Test func aCursorPastRetentionResyncsOnce() async throws {
        let feed = try FakeFeedServer()
        feed.state.withLock {
            $0.changes = 3
            $0.goneCursors = ["2"]
        }
        let (engine, store) = Self.engine(feed, pageSize: 10)
        try await store.saveCursor("2")
        let result = try await engine.sync()
        #expect(result.resynced)
        #expect(result.changes.map(\.cursor) == ["1", "2", "3"])
        #expect(try await store.loadCursor() == "3")
        #expect(feed.state.value.requests.count == 2)
    }

    @Test func aFeedThatKeepsSayingGoneEndsInAnError() async throws {
        let feed = try FakeFeedServer()
        feed.state.withLock {
            $0.changes = 3
            $0.goneCursors = ["1", "3"]
        }
        // The resync's first page (pageSize 1) ends at "1", which is gone too.
        let (engine, store) = Self.engine(feed, pageSize: 1)
        try await store.saveCursor("3")
        await #expect { try await engine.sync() } throws: { ($0 as? TidingsError)?.problem?.type == TidingsProblem.resyncType }
        #expect(try await store.loadCursor() == "3")
    }
}
