import Foundation
import Testing
import TidingsKit

@Suite struct CursorStoreTests {
    static func roundTrip(_ store: any CursorStore) async throws {
        #expect(try await store.loadCursor() == nil)
        try await store.saveCursor("41")
        try await store.saveCursor("42")
        #expect(try await store.loadCursor() == "42")
        try await store.saveCursor(nil)
        #expect(try await store.loadCursor() == nil)
    }

    @Test func aFileStoreKeepsTheLastCursorAndForgetsIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.roundTrip(FileCursorStore(url: directory.appendingPathComponent("nested/cursor")))
    }

    @Test func aUserDefaultsStoreKeepsTheLastCursorAndForgetsIt() async throws {
        try await Self.roundTrip(UserDefaultsCursorStore(key: "tidings.cursor.test-\(UUID().uuidString)"))
    }
}
