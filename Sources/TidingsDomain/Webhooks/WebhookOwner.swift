package import FoundationEssentials

/// Whose webhook: one user's (their events only) or a global one created by
/// the admin (every user's events). Each sees only its own kind.
package enum WebhookOwner: Sendable, Equatable {
    case user(UUID)
    case global

    /// The user, nil for the admin (global webhooks).
    package var userID: UUID? {
        switch self {
        case .user(let id): id
        case .global: nil
        }
    }

    var isGlobal: Bool {
        self == .global
    }
}
