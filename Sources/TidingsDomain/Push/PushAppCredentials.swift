package import TidingsPush

/// What Tidings signs with for one push app. `privateKeyPEM` is a secret:
/// stored sealed, opened only by the push dispatcher, never returned or
/// logged.
package enum PushAppCredentials: Sendable, Equatable {
    /// APNs token-based authentication: the .p8 key (P-256) with its key id
    /// and the team id.
    case apns(environment: APNsEnvironment, teamID: String, keyID: String, privateKeyPEM: String)
    /// FCM HTTP v1 with a Google service account (its RSA key).
    case fcm(projectID: String, clientEmail: String, tokenURI: String, privateKeyPEM: String)
    /// Web Push: the deployment's VAPID key (P-256, PKCS#8 PEM) and the
    /// contact (`sub`) its tokens name.
    case webPush(subject: String, privateKeyPEM: String)

    package var platform: PushPlatform {
        switch self {
        case .apns: .apns
        case .fcm: .fcm
        case .webPush: .webpush
        }
    }

    package var privateKeyPEM: String {
        switch self {
        case .apns(_, _, _, let key), .fcm(_, _, _, let key), .webPush(_, let key): key
        }
    }
}
