import FoundationEssentials

/// A user's API key as stored: never the key itself, only its public prefix
/// (shown in listings so people can tell keys apart) and a hash.
public struct APIKey: Sendable, Equatable {
    public let id: UUID
    public let userID: UUID
    public let prefix: String
    public let name: String?
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let revokedAt: Date?

    public init(id: UUID, userID: UUID, prefix: String, name: String?, createdAt: Date, lastUsedAt: Date?, revokedAt: Date?) {
        self.id = id
        self.userID = userID
        self.prefix = prefix
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

/// A key just issued: the only moment its secret exists outside the client.
public struct IssuedAPIKey: Sendable {
    public let key: APIKey
    public let token: String
}
