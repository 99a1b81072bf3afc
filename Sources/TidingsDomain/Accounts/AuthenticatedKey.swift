import FoundationEssentials

/// A presented API key that matched a stored, unrevoked one.
public struct AuthenticatedKey: Sendable, Equatable {
    public let keyID: UUID
    public let userID: UUID

    public init(keyID: UUID, userID: UUID) {
        self.keyID = keyID
        self.userID = userID
    }
}
