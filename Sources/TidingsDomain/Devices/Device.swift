import FoundationEssentials

/// An app install that receives a user's badge updates through a push gateway.
public struct Device: Sendable, Equatable {
    public let id: UUID
    public let userID: UUID
    public let platform: DevicePlatform
    /// Names the install to its push gateway. Not a secret like an API key,
    /// but not for logs either.
    public let pushToken: String
    public let appID: String?
    public let name: String?
    public let locale: String?
    public let lastSeenAt: Date
    public let createdAt: Date
    public let updatedAt: Date

    public init(
        id: UUID,
        userID: UUID,
        platform: DevicePlatform,
        pushToken: String,
        appID: String?,
        name: String?,
        locale: String?,
        lastSeenAt: Date,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.platform = platform
        self.pushToken = pushToken
        self.appID = appID
        self.name = name
        self.locale = locale
        self.lastSeenAt = lastSeenAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
