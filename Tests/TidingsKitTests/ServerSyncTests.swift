import Foundation
import Testing
import TidingsKit
import TidingsTestSupport

/// TidingsKit against a real Tidings: a user made through the admin API, a
/// device, a watched page on a local origin that changes.
@Suite struct ServerSyncTests {
    /// Watches the origin's page and records a baseline, then a change;
    /// returns the watch and the change's id.
    static func watchAndChange(_ client: TidingsClient, origin: MutableOrigin, to text: String) async throws -> (Watch, String) {
        let watch = try await client.createWatch(WatchDraft(url: origin.url, name: "Pricing", notify: .sync))
        #expect(try await client.checkWatch(id: watch.id).result == .baseline)
        origin.set(text)
        let outcome = try await client.checkWatch(id: watch.id)
        #expect(outcome.result == .changed)
        return (watch, try #require(outcome.changeID))
    }

    @Test func aChangeSyncsExactlyOnceAndTheBadgeFollowsReads() async throws {
        let server = try KitTestServer()
        defer { server.stop() }
        let origin = try MutableOrigin("Pro: $10")
        let client = try await server.createUser()

        let token = Data([0x74, 0x0f, 0x47, 0x07, 0xbe, 0xbc, 0xf7, 0x4f] + Array(repeating: 0xab, count: 24))
        let device = try await client.registerDevice(.apns(token), appID: "com.example.app", name: "Ada's iPhone", locale: "en-GB")
        #expect(device.pushToken == "740f4707bebcf74f" + String(repeating: "ab", count: 24))
        #expect(device.platform == .ios && device.appID == "com.example.app" && device.locale == "en-GB")
        // The same token again is the same device.
        #expect(try await client.registerDevice(.apns(token)).id == device.id)

        let (watch, changeID) = try await Self.watchAndChange(client, origin: origin, to: "Pro: $12")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCursorStore(url: directory.appendingPathComponent("cursor"))

        let engine = SyncEngine(client: client, store: store)
        let first = try await engine.sync()
        #expect(first.changes.map(\.id) == [changeID])
        #expect(first.changes.first?.watchID == watch.id)
        #expect(first.changes.first?.diff.contains("+Pro: $12") == true)
        #expect(first.resynced == false)
        #expect(try await store.loadCursor() == first.cursor)
        #expect(try await engine.sync().changes.isEmpty)
        // Another engine over the same store (the next launch) has nothing new.
        #expect(try await SyncEngine(client: client, store: store).sync().changes.isEmpty)

        // The badge is the unread count; reading brings it down.
        let badge = try await client.badge()
        #expect(badge.count == 1)
        #expect(try await client.watch(id: watch.id).unreadCount == badge.count)
        #expect(first.badge.count == 1)
        origin.set("Pro: $15")
        let second = try #require(try await client.checkWatch(id: watch.id).changeID)
        #expect(try await client.badge().count == 2)
        let receipt = try await client.markRead(watchID: watch.id, upTo: changeID)
        #expect(receipt.unreadCount == 1 && receipt.badge.count == 1)
        #expect(try await engine.sync().changes.map(\.id) == [second])
        #expect(try await client.readAll().count == 0)
        #expect(try await client.badge().count == 0)
    }

    @Test func aCursorTheServerDoesNotKnowResyncsFromTheStart() async throws {
        let server = try KitTestServer()
        defer { server.stop() }
        let origin = try MutableOrigin("v1")
        let client = try await server.createUser()
        let (_, changeID) = try await Self.watchAndChange(client, origin: origin, to: "v2")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCursorStore(url: directory.appendingPathComponent("cursor"))
        // A cursor from another server, ahead of anything this one wrote: 410.
        try await store.saveCursor(String(Int64.max))

        let result = try await SyncEngine(client: client, store: store).sync()
        #expect(result.resynced)
        #expect(result.changes.map(\.id) == [changeID])
        #expect(try await store.loadCursor() == result.cursor)
        #expect(try await SyncEngine(client: client, store: store).sync().changes.isEmpty)
    }

    @Test func devicesAndWatchesRoundTrip() async throws {
        let server = try KitTestServer()
        defer { server.stop() }
        let client = try await server.createUser()

        let android = try await client.registerDevice(.fcm("fcm-token-1"), name: "Pixel")
        #expect(android.platform == .android && android.pushToken == "fcm-token-1")
        let renamed = try await client.updateDevice(id: android.id, DeviceUpdate(name: "Work phone", locale: .some(nil)))
        #expect(renamed.name == "Work phone" && renamed.locale == nil)
        // A browser: the endpoint becomes the push token; the keys are never returned.
        let subscription = WebPushSubscription(
            endpoint: "https://93.184.215.14/wpush/v2/kit",
            p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
            auth: "BTBZMqHH6r4Tts7J_aSIgg")
        let browser = try await client.registerDevice(.webPush(subscription), name: "Firefox")
        #expect(browser.platform == .web && browser.pushToken == subscription.endpoint)
        try await client.deleteDevice(id: browser.id)
        try await client.deleteDevice(id: android.id)
        await #expect { try await client.deleteDevice(id: android.id) } throws: { ($0 as? TidingsError)?.problem?.status == 404 }

        var created: [String] = []
        for index in 0..<5 {
            created.append(try await client.createWatch(WatchDraft(url: "https://93.184.215.14/page-\(index)", intervalSeconds: 600)).id)
        }
        var listed: [String] = []
        for try await watch in client.watches(pageSize: 2) { listed.append(watch.id) }
        #expect(listed == created, "three pages of 2, 2 and 1, in creation order")

        let updated = try await client.updateWatch(
            id: created[0], WatchUpdate(name: "Front page", maxIntervalSeconds: 1200, extract: .some(.css("main"))))
        #expect(updated.name == "Front page" && updated.maxIntervalSeconds == 1200 && updated.extract?.css == "main")
        #expect(try await client.pauseWatch(id: created[0]).paused)
        var paused: [String] = []
        for try await watch in client.watches(paused: true) { paused.append(watch.id) }
        #expect(paused == [created[0]])
        #expect(try await client.resumeWatch(id: created[0]).paused == false)
        try await client.deleteWatch(id: created[1])
        await #expect { try await client.watch(id: created[1]) } throws: { error in
            guard let problem = (error as? TidingsError)?.problem else { return false }
            return problem.status == 404 && problem.requestID != nil
        }

        // The server's 422 comes back typed, naming the field.
        await #expect { try await client.createWatch(WatchDraft(url: "ftp://example.com/")) } throws: { error in
            let problem = (error as? TidingsError)?.problem
            return problem?.status == 422 && problem?.field == "url" && problem?.detail != nil
        }
    }

    @Test func aWrongKeyIsATypedUnauthorized() async throws {
        let server = try KitTestServer()
        defer { server.stop() }
        let client = TidingsClient(baseURL: server.baseURL, apiKey: "tdg_000000000000_" + String(repeating: "A", count: 43))
        await #expect { try await client.badge() } throws: { ($0 as? TidingsError)?.problem?.status == 401 }
    }
}
