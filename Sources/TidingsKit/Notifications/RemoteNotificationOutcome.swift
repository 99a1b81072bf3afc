/// What ``SyncEngine/handleRemoteNotification(_:isolation:)`` did.
public struct RemoteNotificationOutcome: Sendable, Hashable {
    /// The push, as read.
    public let notification: RemoteNotification
    /// The sync a `sync` push ran; nil for other pushes, and for a sync push
    /// whose change the saved cursor already covers.
    public let sync: SyncResult?

    /// Creates an outcome, as the engine reports one.
    public init(notification: RemoteNotification, sync: SyncResult?) {
        self.notification = notification
        self.sync = sync
    }

    /// Whether the push brought anything new (for a background fetch's
    /// completion handler: `.newData` or `.noData`).
    public var hasNewData: Bool {
        switch notification {
        case .badge, .alert: true
        case .sync: !(sync?.changes.isEmpty ?? true)
        }
    }
}
