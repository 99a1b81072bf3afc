package import FoundationEssentials
package import TidingsCrypto
import TidingsJSON
import TidingsObservability
import TidingsSynchronization

/// The VAPID `Authorization` values of one key (RFC 8292): one ES256 token
/// per push service origin (`aud`), valid for `lifetime` (12 hours, half of
/// the 24 the RFC allows, so a clock a little ahead is no trouble), signed
/// once and reused by every push to that origin until less than
/// `refreshMargin` of it is left, then replaced. Signing costs an ECDSA
/// signature (~50 µs); a busy deployment signs a handful of tokens a day.
///
/// A push service that refuses the token (401, 403) makes the next push to
/// it sign a new one. The cache holds at most `capacity` origins (push
/// services are a handful; tests and odd subscriptions add more): when full,
/// tokens past their refresh time go first, then all of them.
///
/// Pure apart from signing: the time comes from `now`.
package final class VAPIDTokens: Sendable {
    package static let lifetime: Duration = .seconds(12 * 3600)
    package static let refreshMargin: Duration = .seconds(6 * 3600)
    package static let capacity = 1024

    private struct Token {
        var authorization: String
        /// Seconds since 1970.
        var expiresAt: Int64
    }

    /// `sub`: the `mailto:` or `https:` contact push services may write to.
    package let subject: String
    /// base64url of the uncompressed public key: `k=` of every header, the
    /// `applicationServerKey` browsers subscribe with.
    package let publicKey: String
    private let key: P256KeyPair
    private let now: @Sendable () -> Date
    private let tokens = AdaptiveMutex<[String: Token]>([:])

    package init(key: P256KeyPair, subject: String, now: @escaping @Sendable () -> Date = { Date() }) throws(PushCredentialError) {
        // Checked once here, so that a token never fails for its subject.
        do {
            _ = try VAPIDClaims(audience: "https://push.example", subject: subject, expiresAt: 2, now: 1)
        } catch {
            throw PushCredentialError("the VAPID subject must be a mailto: or https: URI")
        }
        self.key = key
        self.subject = subject
        self.publicKey = key.publicKeyBase64URL
        self.now = now
    }

    /// The `Authorization` value for a push to `audience`
    /// (`https://host[:port]`): the cached one, or a newly signed one.
    package func authorization(for audience: String) throws(PushCredentialError) -> String {
        let now = self.now().unitsSince1970(perSecond: 1)
        let margin = Self.refreshMargin.components.seconds
        // Signed under the lock: pushes to the same origin arriving
        // meanwhile wait for this token instead of each signing their own.
        let result = tokens.withLock { tokens -> Result<String, PushCredentialError> in
            if let token = tokens[audience], now < token.expiresAt - margin {
                return .success(token.authorization)
            }
            let expiresAt = now + Self.lifetime.components.seconds
            let signed = sign(audience: audience, expiresAt: expiresAt, now: now)
            if case .success(let authorization) = signed {
                if tokens.count >= Self.capacity && tokens[audience] == nil {
                    tokens = tokens.filter { now < $0.value.expiresAt - margin }
                    if tokens.count >= Self.capacity { tokens.removeAll() }
                }
                tokens[audience] = Token(authorization: authorization, expiresAt: expiresAt)
            }
            return signed
        }
        return try result.get()
    }

    /// The push service at `audience` refused `authorization`: the next
    /// push there gets a new token.
    package func rejected(_ authorization: String, audience: String) {
        tokens.withLock { tokens in
            if tokens[audience]?.authorization == authorization { tokens[audience] = nil }
        }
    }

    /// Origins with a cached token.
    package var cachedAudiences: Int {
        tokens.withLock { $0.count }
    }

    private func sign(audience: String, expiresAt: Int64, now: Int64) -> Result<String, PushCredentialError> {
        let claims: VAPIDClaims
        do {
            claims = try VAPIDClaims(audience: audience, subject: subject, expiresAt: expiresAt, now: now)
        } catch {
            return .failure(PushCredentialError("cannot make a VAPID token: \(error)"))
        }
        var json = JSONWriter(capacity: 64 + audience.utf8.count + subject.utf8.count)
        json.beginObject()
        json.key("aud")
        json.value(claims.audience)
        json.key("exp")
        json.value(claims.expiresAt)
        json.key("sub")
        json.value(claims.subject)
        json.endObject()
        do {
            return .success(try VAPID.authorization(claimsJSON: json.bytes, key: key))
        } catch {
            return .failure(PushCredentialError("cannot sign a VAPID token: \(error)"))
        }
    }
}
