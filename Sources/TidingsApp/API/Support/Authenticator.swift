import FoundationEssentials
import TidingsCrypto
import TidingsDomain
import TidingsHTTPServer

/// Decides who is calling: the admin (configured token) or a user (API key).
/// The two never stand in for each other: each gets 403 on the other's
/// endpoints, so a leaked user key cannot reach the admin API.
struct Authenticator: Sendable {
    /// SHA-256 of the admin token: comparing fixed-length hashes in constant
    /// time hides the token's length as well as its content.
    private let adminTokenHash: [UInt8]?
    private let accounts: AccountStore
    private let cache: CredentialCache?

    init(adminToken: String?, accounts: AccountStore, cache: CredentialCache? = nil) {
        self.adminTokenHash = adminToken.map { SHA256.hash($0).bytes }
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
        guard adminTokenHash != nil else {
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
        guard let header = request.headers["Authorization"] else {
            throw Self.unauthorized("Send an API key as \"Authorization: Bearer <key>\".")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw Self.unauthorized("The Authorization header must use the Bearer scheme.")
        }
        let token = String(parts[1]).trimmingWhitespace()
        let tokenHash = SHA256.hash(token)
        if let adminTokenHash, ConstantTime.isEqual(tokenHash.bytes, adminTokenHash) {
            return .admin
        }
        if let cached = cache?.lookup(tokenHash) {
            if cached.markUsed { try accounts.markUsed(keyID: cached.key.keyID) }
            return .user(cached.key.userID)
        }
        let generation = cache?.generation
        guard let key = try accounts.authenticate(token: token) else {
            throw Self.unauthorized("The API key is unknown or revoked.")
        }
        cache?.store(key, for: tokenHash, generation: generation)
        return .user(key.userID)
    }

    private static func unauthorized(_ detail: String) -> HTTPError {
        HTTPError(.unauthorized, detail: detail, headers: ["WWW-Authenticate": "Bearer realm=\"tidings\""])
    }
}
