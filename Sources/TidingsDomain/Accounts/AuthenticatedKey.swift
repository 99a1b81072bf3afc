package import FoundationEssentials

/// A presented API key that matched a stored, unrevoked one.
package struct AuthenticatedKey: Sendable, Equatable {
    package let keyID: UUID
    package let userID: UUID

    package init(keyID: UUID, userID: UUID) {
        self.keyID = keyID
        self.userID = userID
    }
}
