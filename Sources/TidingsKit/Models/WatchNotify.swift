/// What a change of a watch pushes to the user's devices. A struct rather
/// than an enum, so that a kind a newer server adds decodes too.
public struct WatchNotify: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kind's name in the API.
    public let rawValue: String

    /// Wraps a kind name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Only the new badge count (the default).
    public static let badge = WatchNotify(rawValue: "badge")
    /// Also a background push, so the app syncs while closed.
    public static let sync = WatchNotify(rawValue: "sync")
    /// Also a visible notification: the watch's name and what changed.
    public static let alert = WatchNotify(rawValue: "alert")

    /// The kind's name.
    public var description: String { rawValue }
}
