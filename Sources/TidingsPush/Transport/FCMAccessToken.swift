package import FoundationEssentials
import TidingsCrypto
package import TidingsHTTPClient
import TidingsJSON
package import TidingsObservability
import TidingsSynchronization

/// The OAuth 2.0 access token of one service account for FCM, from the
/// JWT bearer grant (RFC 7523): an RS256 assertion signed with the
/// account's key (`iss` its client e-mail, `scope` firebase.messaging,
/// `aud` its token URI, `iat`, `exp` an hour later) posted as a form to
/// the token URI. Cached, shared by every push of the account, fetched
/// once however many pushes wait for it; the rules are
/// `FCMAccessTokenCache`'s.
package final class FCMAccessToken: Sendable {
    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// `exp - iat` of the assertion; Google accepts at most an hour.
    package static let assertionLifetime: Duration = .seconds(3600)
    /// `urn:ietf:params:oauth:grant-type:jwt-bearer`, form-encoded.
    private static let encodedGrantType = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"

    package typealias Completion = @Sendable (Result<String, PushCredentialError>) -> Void

    private struct State {
        var cache = FCMAccessTokenCache()
        var waiters: [Completion] = []
    }

    package let serviceAccount: FCMServiceAccount
    private let key: SigningKey
    private let http: HTTPClient
    private let timeout: Duration
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = AdaptiveMutex(State())

    /// Reads the account's RSA key (PEM, at least 2048 bits).
    package init(
        serviceAccount: FCMServiceAccount,
        http: HTTPClient,
        timeout: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) throws(PushCredentialError) {
        do {
            self.key = try SigningKey(pem: serviceAccount.privateKey, algorithm: .rs256)
        } catch {
            throw PushCredentialError("the service account's private_key \(error)")
        }
        self.serviceAccount = serviceAccount
        self.http = http
        self.timeout = timeout
        self.now = now
        var logger = logger
        logger[metadataKey: "fcm.project"] = serviceAccount.projectID
        self.logger = logger
    }

    /// Calls `completion` once with the token to send with: at once (on
    /// this thread) when one is cached or fetching just failed, else when
    /// the fetch ends (on the HTTP client's driver thread: keep it short).
    package func withToken(_ completion: @escaping Completion) {
        let decision = state.withLock { state -> FCMAccessTokenCache.Decision in
            let decision = state.cache.request(now: now())
            if decision == .fetch || decision == .wait { state.waiters.append(completion) }
            return decision
        }
        switch decision {
        case .use(let token): completion(.success(token))
        case .fail(let error): completion(.failure(error))
        case .wait: break
        case .fetch: fetch()
        }
    }

    /// The token to send with, fetched if need be.
    package func current() async throws(PushCredentialError) -> String {
        let result = await withCheckedContinuation { continuation in
            withToken { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// FCM answered `token` with 401; whether sending again is worth it
    /// (see `FCMAccessTokenCache.rejected`).
    package func rejected(_ token: String) -> Bool {
        state.withLock { $0.cache.rejected(token, now: now()) }
    }

    private func fetch() {
        let request: HTTPClientRequest
        switch assertion() {
        case .failure(let error):
            finish(.failure(error))
            return
        case .success(let assertion):
            request = tokenRequest(assertion: assertion)
        }
        http.execute(request) { [self] result in
            switch result {
            case .success(let response):
                finish(FCMAccessGrant.read(status: response.status, body: response.body, truncated: response.isBodyTruncated))
            case .failure(let error):
                finish(
                    .failure(PushCredentialError("the token endpoint could not be reached: \(error.userDescription)", isTransient: true)))
            }
        }
    }

    private func finish(_ result: Result<FCMAccessGrant, PushCredentialError>) {
        let waiters = state.withLock { state -> [Completion] in
            state.cache.fetched(result, now: now())
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        switch result {
        case .success(let grant):
            logger.debug("FCM access token fetched", metadata: ["fcm.token_lifetime_s": "\(grant.lifetime.components.seconds)"])
        case .failure(let error):
            logger.warning("FCM access token not obtained", metadata: ["error": error.message])
        }
        let tokenResult = result.map(\.accessToken)
        for waiter in waiters { waiter(tokenResult) }
    }

    private func assertion() -> Result<String, PushCredentialError> {
        let issuedAt = now().unitsSince1970(perSecond: 1)
        var header = JSONWriter(capacity: 32)
        header.beginObject()
        header.key("alg")
        header.value("RS256")
        header.key("typ")
        header.value("JWT")
        header.endObject()
        var claims = JSONWriter(capacity: 256)
        claims.beginObject()
        claims.key("aud")
        claims.value(serviceAccount.tokenURI)
        claims.key("exp")
        claims.value(issuedAt + Self.assertionLifetime.components.seconds)
        claims.key("iat")
        claims.value(issuedAt)
        claims.key("iss")
        claims.value(serviceAccount.clientEmail)
        claims.key("scope")
        claims.value(Self.scope)
        claims.endObject()
        do {
            return .success(try JSONWebToken.compact(headerJSON: header.bytes, claimsJSON: claims.bytes, key: key))
        } catch {
            return .failure(PushCredentialError("could not sign the OAuth assertion: \(error)"))
        }
    }

    private func tokenRequest(assertion: String) -> HTTPClientRequest {
        // A compact JWT is base64url and dots: nothing in it to escape.
        var request = HTTPClientRequest(
            url: serviceAccount.tokenURI,
            method: "POST",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array("grant_type=\(Self.encodedGrantType)&assertion=\(assertion)".utf8)
        )
        request.timeout = timeout
        request.followRedirects = false
        request.maxResponseSize = PushAnswerBody.maximumSize
        request.truncatesResponseBody = true
        return request
    }
}
