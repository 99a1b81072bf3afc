import FoundationEssentials
import TidingsDomain
import TidingsPush

/// A push app as the admin API shows it: never its private key. Members of
/// the other platform are null.
struct PushAppRepresentation: Encodable, Sendable {
    let app: PushApp

    init(_ app: PushApp) {
        self.app = app
    }

    enum CodingKeys: String, CodingKey {
        case id, platform, environment
        case appID = "app_id"
        case teamID = "team_id"
        case keyID = "key_id"
        case projectID = "project_id"
        case clientEmail = "client_email"
        case tokenURI = "token_uri"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Every key is always present; nulls are explicit.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app.id.canonicalString, forKey: .id)
        try container.encode(app.platform.rawValue, forKey: .platform)
        try container.encode(app.appID, forKey: .appID)
        try container.encode(app.environment?.rawValue, forKey: .environment)
        try container.encode(app.teamID, forKey: .teamID)
        try container.encode(app.keyID, forKey: .keyID)
        try container.encode(app.projectID, forKey: .projectID)
        try container.encode(app.clientEmail, forKey: .clientEmail)
        try container.encode(app.tokenURI, forKey: .tokenURI)
        try container.encode(app.createdAt, forKey: .createdAt)
        try container.encode(app.updatedAt, forKey: .updatedAt)
    }
}
