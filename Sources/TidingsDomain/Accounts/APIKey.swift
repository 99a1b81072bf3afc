package import FoundationEssentials

/// A user's API key as stored: never the key itself, only its public prefix
/// (shown in listings so people can tell keys apart) and a hash.
package struct APIKey: Sendable, Equatable {
    package let id: UUID
    package let userID: UUID
    package let prefix: String
    package let name: String?
    package let createdAt: Date
    package let lastUsedAt: Date?
    package let revokedAt: Date?

    package init(id: UUID, userID: UUID, prefix: String, name: String?, createdAt: Date, lastUsedAt: Date?, revokedAt: Date?) {
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
package struct IssuedAPIKey: Sendable {
    package let key: APIKey
    package let token: String
}
