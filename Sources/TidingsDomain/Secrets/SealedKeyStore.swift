import FoundationEssentials
import TidingsCrypto
package import TidingsPostgres

/// Keys Tidings makes for itself and keeps in `sealed_keys` (migration
/// 0017), sealed under the secret key like any other stored secret.
package struct SealedKeyStore: Sendable {
    package enum Purpose: String, Sendable, CaseIterable {
        /// The HMAC key of `targets.headers_fingerprint`.
        case headersFingerprint = "headers_fingerprint"
    }

    private let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    /// The key for `purpose`, made (32 random bytes) if there is none yet.
    /// Replicas starting together race to insert; the first one wins and
    /// all read that one.
    func key(for purpose: Purpose, keyring: SecretKeyring) throws -> [UInt8] {
        let context = Self.context(purpose)
        let candidate = try keyring.seal(Hex.encode(SecureRandom.bytes(count: 32)), context: context)
        let stored = try database.withConnection { connection in
            try connection.execute(
                """
                INSERT INTO sealed_keys (purpose, sealed) VALUES (\(purpose.rawValue), \(candidate))
                ON CONFLICT (purpose) DO NOTHING
                """)
            return try connection.query("SELECT sealed FROM sealed_keys WHERE purpose = \(purpose.rawValue)")
                .single().decode("sealed", as: String.self)
        }
        let hex: String
        do {
            hex = try keyring.open(stored, context: context)
        } catch {
            throw StoredSecretsError.unusableKey(purpose: purpose.rawValue, reason: error)
        }
        guard let key = Hex.decode(hex), key.count == 32 else {
            throw StoredSecretsError.unusableKey(purpose: purpose.rawValue, reason: .malformed)
        }
        return key
    }

    static func context(_ purpose: Purpose) -> String {
        "sealed_keys.\(purpose.rawValue)"
    }
}
