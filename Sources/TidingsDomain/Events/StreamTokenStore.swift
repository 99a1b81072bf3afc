package import FoundationEssentials
import TidingsCrypto
package import TidingsPostgres

/// One-time tokens that open one event stream (migration 0032), for
/// browsers, whose `EventSource` cannot send an Authorization header. The
/// token is `tds_` and 43 base64url characters (256 random bits); only its
/// SHA-256 is stored, and opening a stream deletes it.
package struct StreamTokenStore: Sendable {
    package static let scheme = "tds_"
    package static let lifetime: Duration = .seconds(60)

    private let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    /// A new token for the user, valid for `lifetime`. Sweeps a bounded
    /// number of expired ones on the way, so unused tokens do not pile up.
    package func issue(userID: UUID) throws -> (token: String, expiresAt: Date) {
        let token = Self.scheme + SecureRandom.token(byteCount: 32)
        let row = try database.query(
            """
            WITH swept AS (
                DELETE FROM stream_tokens WHERE token_hash IN (
                    SELECT token_hash FROM stream_tokens WHERE expires_at < now() LIMIT 100
                )
            )
            INSERT INTO stream_tokens (token_hash, user_id, expires_at)
            VALUES (\(SHA256.hash(token).bytes), \(userID), now() + \(Self.lifetime)::interval)
            RETURNING expires_at
            """
        ).single()
        return (token, try row.decode("expires_at"))
    }

    /// The user a valid, unused token was issued to; the token is spent.
    /// Nil for anything else, including a malformed token (never queried).
    package func redeem(_ token: String) throws -> UUID? {
        guard Self.isWellFormed(token) else { return nil }
        return try database.query(
            """
            DELETE FROM stream_tokens
            WHERE token_hash = \(SHA256.hash(token).bytes) AND expires_at > now()
            RETURNING user_id
            """
        ).first?.decode("user_id")
    }

    static func isWellFormed(_ token: String) -> Bool {
        token.hasPrefix(scheme) && token.utf8.count == scheme.utf8.count + 43
            && Base64.decode(String(token.dropFirst(scheme.count)))?.count == 32
    }
}
