package import FoundationEssentials

/// A push this dispatcher holds the lease of, with what sending it needs.
package struct ClaimedPush: Sendable, Equatable {
    package let id: UUID
    package let deviceID: UUID
    package let userID: UUID
    package let pushAppID: UUID
    /// The push app's `updated_at`: cached credentials older than this are stale.
    package let pushAppUpdatedAt: Date
    package let platform: PushPlatform
    /// The device's token on its push service; not for logs.
    package let deviceToken: String
    package let kind: PushKind
    package let badge: Int?
    package let watchID: UUID?
    package let changeID: UUID?
    package let title: String?
    package let body: String?
    /// A sync push's: the feed position of the user's newest change when
    /// the push was claimed. An app whose stored cursor is at or past it
    /// is already up to date.
    package let cursor: FeedPosition?
    /// Attempts before this one.
    package let attemptCount: Int
    /// A web device's subscription keys: `p256dh` (base64url) and `auth`
    /// as stored, sealed (`StoredSecrets.openWebPushAuth` opens it); nil
    /// for other devices. `deviceToken` is the subscription's endpoint.
    package var webPushP256dh: String? = nil
    package var webPushSealedAuth: String? = nil
}
