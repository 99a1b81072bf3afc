package import FoundationEssentials

/// One push to one device, as its push log shows it.
package struct Push: Sendable, Equatable {
    package let id: UUID
    package let deviceID: UUID
    package let pushAppID: UUID?
    package let kind: PushKind
    package let status: PushStatus
    /// The count a badge or alert push carries.
    package let badge: Int?
    package let watchID: UUID?
    package let changeID: UUID?
    /// Why it failed or was skipped.
    package let reason: String?
    /// The APNs `apns-id` or FCM message name of a sent push.
    package let providerID: String?
    package let attemptCount: Int
    /// Nil unless pending.
    package let nextAttemptAt: Date?
    package let lastAttemptAt: Date?
    package let completedAt: Date?
    package let createdAt: Date
    package let updatedAt: Date
}
