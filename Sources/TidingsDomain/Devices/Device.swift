package import FoundationEssentials

/// An app install that receives a user's badge updates through a push gateway.
package struct Device: Sendable, Equatable {
    package let id: UUID
    package let userID: UUID
    package let platform: DevicePlatform
    /// Names the install to its push gateway. Not a secret like an API key,
    /// but not for logs either.
    package let pushToken: String
    package let appID: String?
    package let name: String?
    package let locale: String?
    package let lastSeenAt: Date
    package let createdAt: Date
    package let updatedAt: Date

    package init(
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
