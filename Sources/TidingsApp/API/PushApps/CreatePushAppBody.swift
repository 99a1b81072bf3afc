import TidingsCrypto
import TidingsDomain
import TidingsHTTPServer
import TidingsPush

/// `POST /v1/push-apps` body. APNs: `environment`, `team_id`, `key_id` and
/// `private_key` (the .p8 PEM); FCM: `service_account`. Members of the
/// other platform are refused, naming them.
struct CreatePushAppBody: Decodable {
    let app: NewPushApp

    enum CodingKeys: String, CodingKey, CaseIterable {
        case platform, environment
        case appID = "app_id"
        case teamID = "team_id"
        case keyID = "key_id"
        case privateKey = "private_key"
        case serviceAccount = "service_account"
    }

    static let apnsOnly: [CodingKeys] = [.environment, .teamID, .keyID, .privateKey]
    static let fcmOnly: [CodingKeys] = [.serviceAccount]

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let platformName = try container.decode(String.self, forKey: .platform)
        guard let platform = PushPlatform(rawValue: platformName), PushPlatform.adminManaged.contains(platform) else {
            let choices = "must be one of \(PushPlatform.adminManaged.map(\.rawValue).joined(separator: ", "))"
            throw container.fieldProblem(
                .platform,
                platformName == PushPlatform.webpush.rawValue
                    ? choices + "; Web Push signs with the deployment's VAPID key (TIDINGS_VAPID_PRIVATE_KEY), not a push app"
                    : choices)
        }
        let appID = try container.decode(String.self, forKey: .appID)
        try PushAppFieldRules.validateAppID(appID, key: .appID, in: container)
        switch platform {
        case .apns:
            if let key = Self.fcmOnly.first(where: container.contains) { throw container.fieldProblem(key, "is only for fcm apps") }
            let teamID = try container.decode(String.self, forKey: .teamID)
            try PushAppFieldRules.validateAppleID(teamID, key: .teamID, in: container)
            let keyID = try container.decode(String.self, forKey: .keyID)
            try PushAppFieldRules.validateAppleID(keyID, key: .keyID, in: container)
            let privateKey = try container.decode(String.self, forKey: .privateKey)
            try PushAppFieldRules.validatePrivateKey(privateKey, algorithm: .es256, key: .privateKey, in: container)
            app = NewPushApp(
                appID: appID,
                credentials: .apns(
                    environment: try container.decodeChoice(APNsEnvironment.self, forKey: .environment),
                    teamID: teamID, keyID: keyID, privateKeyPEM: privateKey
                ))
        case .webpush:
            preconditionFailure("refused above")
        case .fcm:
            if let key = Self.apnsOnly.first(where: container.contains) { throw container.fieldProblem(key, "is only for apns apps") }
            let account = try container.decode(ServiceAccountBody.self, forKey: .serviceAccount)
            app = NewPushApp(
                appID: appID,
                credentials: .fcm(
                    projectID: account.projectID, clientEmail: account.clientEmail, tokenURI: account.tokenURI,
                    privateKeyPEM: account.privateKeyPEM
                ))
        }
    }
}
