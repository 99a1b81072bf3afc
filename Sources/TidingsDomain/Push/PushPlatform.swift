/// The push services Tidings sends through itself.
package enum PushPlatform: String, Sendable, CaseIterable {
    /// Apple Push Notification service, token-based (HTTP/2, ES256 JWT).
    case apns
    /// Firebase Cloud Messaging, HTTP v1 (OAuth 2.0 service account).
    case fcm
}

/// The APNs environment a push app's builds talk to.
package enum APNsEnvironment: String, Sendable, CaseIterable {
    case production
    case sandbox
}
