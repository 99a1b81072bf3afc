import FoundationEssentials
import TidingsCrypto
import TidingsDomain
import TidingsHTTPServer

/// Decides who is calling: the admin (configured token) or a user (API key).
/// The two never stand in for each other: each gets 403 on the other's
/// endpoints, so a leaked user key cannot reach the admin API.
struct Authenticator: Sendable {
    private let adminToken: ExpectedToken?
    private let accounts: AccountStore
    private let cache: CredentialCache?

    init(adminToken: String?, accounts: AccountStore, cache: CredentialCache? = nil) {
        self.adminToken = adminToken.map(ExpectedToken.init)
        self.accounts = accounts
        self.cache = cache
    }

    /// Forgets cached credentials at once after a revocation or deletion
    /// made by this replica (other replicas hear of it through NOTIFY).
    func forget(keyID: UUID) {
        cache?.invalidate(keyID: keyID)
    }

    func forget(userID: UUID) {
        cache?.invalidate(userID: userID)
    }

    private enum Caller {
        case admin
        case user(UUID)
    }

    func requireAdmin(_ request: HTTPRequest) throws {
        guard adminToken != nil else {
            throw HTTPError(.forbidden, detail: "The admin API is disabled: set TIDINGS_ADMIN_TOKEN to enable it.")
        }
        switch try caller(request) {
        case .admin:
            return
        case .user:
            throw HTTPError(.forbidden, detail: "This endpoint needs the admin token; an API key cannot be used here.")
        }
    }

    func requireUser(_ request: HTTPRequest) throws -> UUID {
        switch try caller(request) {
        case .user(let id):
            return id
        case .admin:
            throw HTTPError(.forbidden, detail: "This endpoint needs a user's API key; the admin token cannot be used here.")
        }
    }

    private func caller(_ request: HTTPRequest) throws -> Caller {
        let token = try BearerCredential.token(in: request, missing: "Send an API key as \"Authorization: Bearer <key>\".")
        let tokenHash = SHA256.hash(token)
        if let adminToken, adminToken.matches(digest: tokenHash.bytes) {
            return .admin
        }
        if let cached = cache?.lookup(tokenHash) {
            if cached.markUsed { try accounts.markUsed(keyID: cached.key.keyID) }
            return .user(cached.key.userID)
        }
        let generation = cache?.generation
        guard let key = try accounts.authenticate(token: token) else {
            throw BearerCredential.unauthorized("The API key is unknown or revoked.")
        }
        cache?.store(key, for: tokenHash, generation: generation)
        return .user(key.userID)
    }
}
