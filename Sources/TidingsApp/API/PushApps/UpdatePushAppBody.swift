import TidingsCrypto
import TidingsDomain
import TidingsHTTPServer
import TidingsPush

/// `PATCH /v1/push-apps/{id}` body: only the members present change; the
/// platform cannot. `private_key` and `service_account` replace the stored
/// credentials (key rotation).
struct UpdatePushAppBody: Decodable {
    typealias CodingKeys = CreatePushAppBody.CodingKeys

    let platform: PushPlatform?
    let appID: String?
    let environment: APNsEnvironment?
    let teamID: String?
    let keyID: String?
    let privateKey: String?
    let serviceAccount: ServiceAccountBody?

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        platform = try container.decodeChoiceUnlessAbsent(PushPlatform.self, forKey: .platform)
        appID = try container.decodeUnlessAbsent(String.self, forKey: .appID)
        if let appID { try PushAppFieldRules.validateAppID(appID, key: .appID, in: container) }
        environment = try container.decodeChoiceUnlessAbsent(APNsEnvironment.self, forKey: .environment)
        teamID = try container.decodeUnlessAbsent(String.self, forKey: .teamID)
        if let teamID { try PushAppFieldRules.validateAppleID(teamID, key: .teamID, in: container) }
        keyID = try container.decodeUnlessAbsent(String.self, forKey: .keyID)
        if let keyID { try PushAppFieldRules.validateAppleID(keyID, key: .keyID, in: container) }
        privateKey = try container.decodeUnlessAbsent(String.self, forKey: .privateKey)
        if let privateKey { try PushAppFieldRules.validatePrivateKey(privateKey, algorithm: .es256, key: .privateKey, in: container) }
        serviceAccount = try container.decodeUnlessAbsent(ServiceAccountBody.self, forKey: .serviceAccount)
    }

    /// Applies the present members to the stored app; 422 for members of
    /// the other platform, or for a platform change.
    func apply(to app: inout NewPushApp) throws(HTTPError) {
        if let platform, platform != app.credentials.platform {
            throw HTTPError.field("platform", "cannot change; delete the app and register it again")
        }
        if let appID { app.appID = appID }
        switch app.credentials {
        case .apns(let environment, let teamID, let keyID, let privateKey):
            if serviceAccount != nil { throw HTTPError.field("service_account", "is only for fcm apps") }
            app.credentials = .apns(
                environment: self.environment ?? environment, teamID: self.teamID ?? teamID,
                keyID: self.keyID ?? keyID, privateKeyPEM: self.privateKey ?? privateKey
            )
        case .fcm:
            let apnsOnly: [(String, Bool)] = [
                ("environment", environment != nil), ("key_id", keyID != nil), ("private_key", privateKey != nil),
                ("team_id", teamID != nil),
            ]
            if let (field, _) = apnsOnly.first(where: \.1) { throw HTTPError.field(field, "is only for apns apps") }
            if let account = serviceAccount {
                app.credentials = .fcm(
                    projectID: account.projectID, clientEmail: account.clientEmail, tokenURI: account.tokenURI,
                    privateKeyPEM: account.privateKeyPEM
                )
            }
        case .webPush:
            // The store never hands the Web Push app to an edit.
            throw HTTPError(.notFound, detail: "There is no push app with this id.")
        }
    }
}
