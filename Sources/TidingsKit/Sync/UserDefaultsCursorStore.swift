public import Foundation

/// A cursor under a key of `UserDefaults`: the standard defaults, or those
/// of an app group shared with an extension.
public struct UserDefaultsCursorStore: CursorStore {
    /// The defaults key.
    public let key: String
    /// The app group's suite, or nil for the standard defaults.
    public let suiteName: String?

    /// A store under `key` of the standard defaults or of `suiteName`'s.
    public init(key: String, suiteName: String? = nil) {
        self.key = key
        self.suiteName = suiteName
    }

    // `UserDefaults` is looked up at each call rather than held, as it is
    // not `Sendable` on every platform; lookups are cheap.
    private var defaults: UserDefaults {
        suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
    }

    /// The cursor saved under the key.
    public func loadCursor() async throws -> String? {
        defaults.string(forKey: key)
    }

    /// Saves the cursor under the key, or removes it for nil.
    public func saveCursor(_ cursor: String?) async throws {
        if let cursor {
            defaults.set(cursor, forKey: key)
        } else {
            defaults.removeObject(forKey: key)
        }
    }
}
