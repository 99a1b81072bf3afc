import TidingsCrypto
import TidingsDomain
import TidingsHTTPServer

/// `service_account`: the Google service-account JSON file as downloaded.
/// Only `project_id`, `client_email`, `private_key` and `token_uri` are
/// used; the file's other members are accepted and dropped.
struct ServiceAccountBody: Decodable {
    let projectID: String
    let clientEmail: String
    let tokenURI: String
    let privateKeyPEM: String

    enum CodingKeys: String, CodingKey {
        case projectID = "project_id"
        case clientEmail = "client_email"
        case tokenURI = "token_uri"
        case privateKeyPEM = "private_key"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        projectID = try container.decode(String.self, forKey: .projectID)
        try Self.validate(projectID, key: .projectID, in: container, maxLength: 255)
        clientEmail = try container.decode(String.self, forKey: .clientEmail)
        try Self.validate(clientEmail, key: .clientEmail, in: container, maxLength: 320)
        guard clientEmail.contains("@") else { throw container.fieldProblem(.clientEmail, "must be the service account's e-mail address") }
        tokenURI = try container.decode(String.self, forKey: .tokenURI)
        try Self.validate(tokenURI, key: .tokenURI, in: container, maxLength: 2048)
        guard tokenURI.hasPrefix("https://"), tokenURI.count > "https://".count else {
            throw container.fieldProblem(.tokenURI, "must be an https URL such as https://oauth2.googleapis.com/token")
        }
        privateKeyPEM = try container.decode(String.self, forKey: .privateKeyPEM)
        try PushAppFieldRules.validatePrivateKey(privateKeyPEM, algorithm: .rs256, key: .privateKeyPEM, in: container)
    }

    /// Printable, no control characters, within the column's length.
    private static func validate(_ value: String, key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>, maxLength: Int) throws
    {
        guard (1...maxLength).contains(value.unicodeScalars.count),
            !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        else {
            throw container.fieldProblem(key, "must be 1 to \(maxLength) characters without spaces or control characters")
        }
    }
}
