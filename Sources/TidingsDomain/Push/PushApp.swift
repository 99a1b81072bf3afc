package import FoundationEssentials
package import TidingsPush

/// A push app as it can be shown: everything but the private key.
package struct PushApp: Sendable, Equatable {
    package let id: UUID
    package let platform: PushPlatform
    /// The bundle id (the `apns-topic`) or the Android package name.
    package let appID: String
    /// APNs only.
    package let environment: APNsEnvironment?
    package let teamID: String?
    package let keyID: String?
    /// FCM only.
    package let projectID: String?
    package let clientEmail: String?
    package let tokenURI: String?
    /// Web Push only: the VAPID `sub` and the public key (base64url).
    package let vapidSubject: String?
    package let vapidPublicKey: String?
    package let createdAt: Date
    package let updatedAt: Date
}
