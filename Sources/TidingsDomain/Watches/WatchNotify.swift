import TidingsPostgres

/// What a change of a watch pushes to its owner's devices (direct push).
/// Every kind also updates the badge.
package enum WatchNotify: String, Sendable, CaseIterable {
    /// The new unread count only.
    case badge
    /// Also a background push that lets the app fetch the change while it
    /// is closed (budgeted per device: `TIDINGS_PUSH_SYNC_BUDGET`).
    case sync
    /// Also a visible notification: the watch's name and what changed.
    case alert
}

extension WatchNotify: PostgresTextEnum {}
