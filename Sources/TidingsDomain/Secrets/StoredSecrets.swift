import FoundationEssentials
package import TidingsCrypto
package import TidingsPostgres

/// How secrets are kept in the database: sealed with the keyring
/// (AES-256-GCM under `TIDINGS_SECRET_KEY`) on the way in, opened only where
/// they are used (the poller building a request, the dispatcher signing),
/// never when a watch or webhook is merely read. Header identity uses an
/// HMAC of the plain values under `fingerprintKey`, so equal headers still
/// share a target although each sealed copy differs.
///
/// Contexts bind each sealed value to what it is: a webhook secret does not
/// open as a header value, nor one header's value as another's.
package struct StoredSecrets: Sendable {
    package let keyring: SecretKeyring
    /// The HMAC key of `targets.headers_fingerprint` (`sealed_keys`).
    let fingerprintKey: [UInt8]

    package init(keyring: SecretKeyring, fingerprintKey: [UInt8]) {
        self.keyring = keyring
        self.fingerprintKey = fingerprintKey
    }

    /// The keyring with the fingerprint key stored in the database, which
    /// is created on first use. Fails when the stored key cannot be opened:
    /// the configured keys are not those the data was sealed with, which is
    /// better found at start-up than at the first delivery.
    package static func load(keyring: SecretKeyring, database: PostgresClient) throws -> StoredSecrets {
        let key = try SealedKeyStore(database: database).key(for: .headersFingerprint, keyring: keyring)
        return StoredSecrets(keyring: keyring, fingerprintKey: key)
    }

    // MARK: Webhook secrets

    static let webhookSecretContext = "webhooks.secret"

    /// Seals a `whsec_` secret for `webhooks.secret` or `previous_secret`
    /// (one context for both: a rotation moves the sealed value across).
    func sealWebhookSecret(_ secret: String) throws -> String {
        try keyring.seal(secret, context: Self.webhookSecretContext)
    }

    /// The `whsec_` secret of a stored value. A plain value (written before
    /// secrets were sealed, or by a replica not yet upgraded) is returned as
    /// it is until the start-up pass or `tidings rotate-secret-key` seals it.
    package func openWebhookSecret(_ stored: String) throws(SecretError) -> String {
        guard SecretKeyring.isSealed(stored) else { return stored }
        return try keyring.open(stored, context: Self.webhookSecretContext)
    }

    // MARK: Push app keys

    static let pushKeyContext = "push_apps.private_key"

    func sealPushKey(_ pem: String) throws -> String {
        try keyring.seal(pem, context: Self.pushKeyContext)
    }

    func openPushKey(_ stored: String) throws(SecretError) -> String {
        try keyring.open(stored, context: Self.pushKeyContext)
    }

    // MARK: Web Push subscription secrets

    static let webPushAuthContext = "devices.web_push_auth"

    /// Seals a web device's `keys.auth` (base64url) for `devices.web_push_auth`.
    func sealWebPushAuth(_ auth: String) throws -> String {
        try keyring.seal(auth, context: Self.webPushAuthContext)
    }

    /// The base64url `keys.auth` of a stored value; only the push
    /// dispatcher opens it, to encrypt a message.
    package func openWebPushAuth(_ stored: String) throws(SecretError) -> String {
        try keyring.open(stored, context: Self.webPushAuthContext)
    }

    // MARK: Request headers

    /// The column of `targets` a header value is sealed for: a watch's
    /// header does not open as its version endpoint's, nor the other way.
    package enum HeaderColumn: String, Sendable {
        case headers = "targets.headers"
        case versionHeaders = "targets.version_headers"
    }

    static func headerContext(_ column: HeaderColumn, name: String) -> String {
        "\(column.rawValue).\(name)"
    }

    /// Lower-case name -> sealed value, for `targets.headers` or
    /// `targets.version_headers`.
    func sealHeaders(_ fields: [String: String], in column: HeaderColumn = .headers) throws -> [String: String] {
        var sealed: [String: String] = [:]
        for (name, value) in fields {
            sealed[name] = try keyring.seal(value, context: Self.headerContext(column, name: name))
        }
        return sealed
    }

    /// The plain values of a header column; `sealed` is the row's
    /// `secrets_sealed` (false: a row from before sealing, values plain).
    package func openHeaders(
        _ stored: [String: String], sealed: Bool, in column: HeaderColumn = .headers
    ) throws(SecretError) -> [String: String] {
        guard sealed else { return stored }
        var plain: [String: String] = [:]
        for (name, value) in stored {
            plain[name] = try keyring.open(value, context: Self.headerContext(column, name: name))
        }
        return plain
    }

    /// HMAC-SHA256 (hex) of the canonical header lists (see
    /// `RequestHeaders.canonicalText`): `targets.headers_fingerprint`. The
    /// version endpoint's headers follow a `version` line, which no header
    /// line can be (it has no `:`); without them the text is the page
    /// headers' alone, so targets from before `version_headers` keep their
    /// fingerprint.
    func fingerprint(_ headers: RequestHeaders, versionHeaders: RequestHeaders = .none) -> String {
        var text = headers.canonicalText
        if !versionHeaders.fields.isEmpty {
            text += "version\n" + versionHeaders.canonicalText
        }
        return HMACSHA256.authenticationCode(for: Array(text.utf8), key: fingerprintKey).hex
    }
}
