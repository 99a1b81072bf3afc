/// The push services Tidings sends through itself.
package enum PushPlatform: String, Sendable, CaseIterable {
    /// Apple Push Notification service, token-based (HTTP/2, ES256 JWT).
    case apns
    /// Firebase Cloud Messaging, HTTP v1 (OAuth 2.0 service account).
    case fcm
    /// Web Push (RFC 8030, 8291, 8292) to browsers' push services, signed
    /// with the deployment's VAPID key: one push app Tidings manages itself
    /// (`PushAppStore.installVAPIDKey`), never the admin API's.
    case webpush

    /// The platforms an admin registers apps of (`/v1/push-apps`).
    package static let adminManaged: [PushPlatform] = [.apns, .fcm]
}
