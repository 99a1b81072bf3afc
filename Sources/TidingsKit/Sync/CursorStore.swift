import Foundation

/// Where a ``SyncEngine`` keeps its position in the sync feed between
/// launches. Saving must be durable: a cursor saved and then lost would
/// make the next sync return changes again.
public protocol CursorStore: Sendable {
    /// The cursor saved last, or nil before the first sync.
    func loadCursor() async throws -> String?
    /// Replaces the saved cursor; nil forgets it.
    func saveCursor(_ cursor: String?) async throws
}

/// The platform's usual place for a cursor.
public enum DefaultCursorStore {
    /// `UserDefaults` on Apple platforms, a file in the caches directory
    /// elsewhere; `name` tells the cursors of several users or servers apart.
    public static func named(_ name: String) -> any CursorStore {
        #if canImport(Darwin)
        return UserDefaultsCursorStore(key: "tidings.cursor.\(name)")
        #else
        let directory =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
        return FileCursorStore(url: directory.appendingPathComponent("tidings-cursor-\(name)"))
        #endif
    }
}
