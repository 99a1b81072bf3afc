import Foundation
import Testing
import TidingsKit

/// The payloads Tidings' push dispatcher writes (Sources/TidingsDispatcher/PushMessages.swift).
@Suite struct RemoteNotificationTests {
    @Test func apnsPayloadsAreRecognised() {
        #expect(RemoteNotification(userInfo: ["aps": ["badge": 3]]) == .badge(count: 3))
        let sync: [AnyHashable: Any] = [
            "aps": ["content-available": 1],
            "tidings": ["kind": "sync", "watch_id": "w1", "change_id": "c1", "cursor": "42"],
        ]
        #expect(RemoteNotification(userInfo: sync) == .sync(watchID: "w1", changeID: "c1", cursor: "42"))
        let alert: [AnyHashable: Any] = [
            "aps": ["alert": ["title": "Pricing", "body": "Pro: $12"], "badge": 2, "sound": "default", "thread-id": "watch-w1"],
            "tidings": ["kind": "alert", "watch_id": "w1", "change_id": "c1"],
        ]
        #expect(RemoteNotification(userInfo: alert) == .alert(title: "Pricing", body: "Pro: $12", badge: 2, watchID: "w1", changeID: "c1"))
    }

    @Test func fcmDataMessagesAreRecognised() {
        #expect(RemoteNotification(userInfo: ["tidings_kind": "badge", "badge": "5"]) == .badge(count: 5))
        #expect(
            RemoteNotification(userInfo: ["tidings_kind": "sync", "badge": "5", "watch_id": "w", "change_id": "c", "cursor": "9"])
                == .sync(watchID: "w", changeID: "c", cursor: "9"))
        #expect(
            RemoteNotification(userInfo: ["tidings_kind": "alert", "title": "T", "body": "B", "badge": "1", "watch_id": "w"])
                == .alert(title: "T", body: "B", badge: 1, watchID: "w", changeID: nil))
    }

    @Test func otherPushesAreNotTidings() {
        #expect(RemoteNotification(userInfo: [:]) == nil)
        #expect(RemoteNotification(userInfo: ["aps": ["alert": "hello", "badge": 1]]) == nil)
        #expect(RemoteNotification(userInfo: ["aps": ["badge": -1]]) == nil)
        #expect(RemoteNotification(userInfo: ["aps": ["badge": "many"]]) == nil)
        #expect(RemoteNotification(userInfo: ["tidings_kind": "badge"]) == nil)
        #expect(RemoteNotification(userInfo: ["tidings_kind": "party"]) == nil)
        #expect(RemoteNotification(userInfo: ["tidings": "sync"]) == nil)
    }

    @Test func aSyncPushSyncsUnlessTheCursorCoversIt() async throws {
        let feed = try FakeFeedServer()
        feed.state.withLock { $0.changes = 2 }
        let (engine, store) = SyncEngineTests.engine(feed, pageSize: 10)
        let push: [AnyHashable: Any] = ["aps": ["content-available": 1], "tidings": ["kind": "sync", "cursor": "2"]]

        let first = try #require(try await engine.handleRemoteNotification(push))
        #expect(first.sync?.changes.map(\.cursor) == ["1", "2"])
        #expect(first.hasNewData)
        #expect(try await store.loadCursor() == "2")
        // The same push again (APNs may deliver twice): already seen, no request.
        let again = try #require(try await engine.handleRemoteNotification(push))
        #expect(again.sync == nil && !again.hasNewData)
        #expect(feed.state.value.requests.count == 1)

        let badge = try #require(try await engine.handleRemoteNotification(["tidings_kind": "badge", "badge": "2"]))
        #expect(badge.notification == .badge(count: 2) && badge.sync == nil)
        #expect(try await engine.handleRemoteNotification(["aps": ["alert": "not ours"]]) == nil)
        #expect(feed.state.value.requests.count == 1)
    }
}
