extension SyncEngine {
    /// Reads a remote notification and acts on it: a `sync` push runs
    /// ``sync()`` (unless the saved cursor is already at or past the push's
    /// cursor, which means the change was seen), badge and alert pushes
    /// are only reported. Call it from
    /// `application(_:didReceiveRemoteNotification:)` or an FCM message handler.
    ///
    /// `userInfo` is read on the caller's actor before anything else, so
    /// it never crosses to another one.
    ///
    /// - Parameters:
    ///   - userInfo: The notification's payload.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: What the push was and what was done; nil when it is not
    ///   a Tidings push.
    public func handleRemoteNotification(
        _ userInfo: [AnyHashable: Any], isolation: isolated (any Actor)? = #isolation
    ) async throws -> RemoteNotificationOutcome? {
        guard let notification = RemoteNotification(userInfo: userInfo) else { return nil }
        guard case .sync(_, _, let pushed) = notification else {
            return RemoteNotificationOutcome(notification: notification, sync: nil)
        }
        if let pushed = pushed.flatMap(Int64.init), let saved = try await savedCursor().flatMap(Int64.init), saved >= pushed {
            return RemoteNotificationOutcome(notification: notification, sync: nil)
        }
        return RemoteNotificationOutcome(notification: notification, sync: try await sync())
    }
}
