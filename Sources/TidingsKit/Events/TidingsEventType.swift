/// The type of a ``TidingsEvent``. A struct rather than an enum, so that a
/// type a newer server adds arrives too.
public struct TidingsEventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's name in the API.
    public let rawValue: String

    /// Wraps a type name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A watch changed: `data` has `watch_id`, `change_id`, `cursor` and the diff.
    public static let watchChanged = TidingsEventType(rawValue: "watch.changed")
    /// The unread total changed: `data.count` is the new badge.
    public static let badgeUpdated = TidingsEventType(rawValue: "badge.updated")
    /// A watch started failing.
    public static let watchFailing = TidingsEventType(rawValue: "watch.failing")
    /// A failing watch works again.
    public static let watchRecovered = TidingsEventType(rawValue: "watch.recovered")
    /// A device's push token was rejected and the device removed.
    public static let deviceInvalidated = TidingsEventType(rawValue: "device.invalidated")
    /// The position resumed from is gone (past retention, or unknown):
    /// events were missed, so sync from the start (``SyncEngine`` does
    /// that by itself when its own cursor is gone; an app keeping the
    /// stream's position resyncs here).
    public static let streamResync = TidingsEventType(rawValue: "stream.resync")

    /// The type's name.
    public var description: String { rawValue }
}
