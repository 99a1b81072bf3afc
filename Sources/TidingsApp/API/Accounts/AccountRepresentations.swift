import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

/// A user as the API shows it.
struct UserRepresentation: Encodable, Sendable {
    let id: String
    let name: String
    let createdAt: Date

    init(_ user: User) {
        id = user.id.canonicalString
        name = user.name
        createdAt = user.createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case createdAt = "created_at"
    }
}

/// An API key as the API shows it: never the secret, only its prefix.
struct APIKeyRepresentation: Encodable, Sendable {
    let id: UUID
    let userID: UUID
    let prefix: String
    let name: String?
    let createdAt: Date
    let lastUsedAt: Date?
    let revokedAt: Date?

    init(_ key: APIKey) {
        id = key.id
        userID = key.userID
        prefix = key.prefix
        name = key.name
        createdAt = key.createdAt
        lastUsedAt = key.lastUsedAt
        revokedAt = key.revokedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, prefix, name
        case userID = "user_id"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case revokedAt = "revoked_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.canonicalString, forKey: .id)
        try container.encode(userID.canonicalString, forKey: .userID)
        try container.encode(prefix, forKey: .prefix)
        try container.encode(name, forKey: .name)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(revokedAt, forKey: .revokedAt)
    }
}

/// `POST /v1/users` answer: the user and its first key, shown this once.
struct CreatedUserRepresentation: Encodable, Sendable {
    let user: UserRepresentation
    let apiKey: String
    let key: APIKeyRepresentation

    enum CodingKeys: String, CodingKey {
        case user, key
        case apiKey = "api_key"
    }
}

/// `POST /v1/users/{id}/keys` answer: the key and its secret, shown this once.
struct IssuedKeyRepresentation: Encodable, Sendable {
    let apiKey: String
    let key: APIKeyRepresentation

    enum CodingKeys: String, CodingKey {
        case key
        case apiKey = "api_key"
    }
}

/// `POST /v1/users` body.
struct CreateUserBody: Decodable {
    let name: String
    let keyName: String?

    enum CodingKeys: String, CodingKey {
        case name
        case keyName = "key_name"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        // Optional means "may be left out", not "may be null" (openapi.yaml).
        keyName = container.contains(.keyName) ? try container.decode(String.self, forKey: .keyName) : nil
        try TextField.validate(name, key: .name, in: container, maxLength: 200)
        if let keyName { try TextField.validate(keyName, key: .keyName, in: container, maxLength: 200) }
    }
}

/// `POST /v1/users/{id}/keys` body (optional).
struct IssueKeyBody: Decodable {
    let name: String?

    enum CodingKeys: String, CodingKey {
        case name
    }

    init(name: String?) {
        self.name = name
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = container.contains(.name) ? try container.decode(String.self, forKey: .name) : nil
        if let name { try TextField.validate(name, key: .name, in: container, maxLength: 200) }
    }
}
