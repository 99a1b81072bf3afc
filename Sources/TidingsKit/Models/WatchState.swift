/// How a watch's checks are going. A struct rather than an enum, so that a
/// state a newer server adds decodes too.
public struct WatchState: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The state's name in the API.
    public let rawValue: String

    /// Wraps a state name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Not checked yet.
    public static let pending = WatchState(rawValue: "pending")
    /// The last checks worked.
    public static let ok = WatchState(rawValue: "ok")
    /// Several checks in a row failed (`lastError` says why).
    public static let failing = WatchState(rawValue: "failing")

    /// The state's name.
    public var description: String { rawValue }
}
