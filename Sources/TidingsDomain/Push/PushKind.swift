import TidingsPostgres

/// What a push carries.
package enum PushKind: String, Sendable, CaseIterable {
    /// The user's absolute unread count (APNs `aps.badge`, FCM data).
    case badge
    /// A background push naming a watch's change (notify: sync).
    case sync
    /// A visible notification of a change, with the badge (notify: alert).
    case alert
}

/// Where a push is in its life.
package enum PushStatus: String, Sendable, CaseIterable {
    /// Queued or in flight.
    case pending
    /// The push service accepted it.
    case sent
    /// Refused for good, or out of attempts; `reason` says why.
    case failed
    /// The device has no push app; `reason` says why. One row per device.
    case skipped
    /// A newer push of the same kind was waiting when this one was to be
    /// tried again; only the newer one goes.
    case superseded
}

extension PushKind: PostgresTextEnum {}
extension PushStatus: PostgresTextEnum {}
