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
    private let failures: AuthenticationFailureLimiter?

    init(adminToken: String?, accounts: AccountStore, cache: CredentialCache? = nil, failures: AuthenticationFailureLimiter? = nil) {
        self.adminToken = adminToken.map(ExpectedToken.init)
        self.accounts = accounts
        self.cache = cache
        self.failures = failures
    }

    /// Looks a credential up in the database unless the client has failed
    /// too often (429), and counts a lookup that finds nothing as a failure:
    /// the one way an unknown credential reaches the database.
    func lookUp<T>(credentialOf request: HTTPRequest, _ lookup: () throws -> T?) throws -> T? {
        let client = failures == nil ? nil : AuthenticationFailureLimiter.client(of: request)
        try failures?.admit(client)
        let found = try lookup()
        if found == nil { failures?.failed(client) }
        return found
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
        guard let key = try lookUp(credentialOf: request, { try accounts.authenticate(token: token) }) else {
            throw BearerCredential.unauthorized("The API key is unknown or revoked.")
        }
        cache?.store(key, for: tokenHash, generation: generation)
        return .user(key.userID)
    }
}
