import Foundation
import TidingsCrypto
import TidingsObservability

/// The keyring for stored secrets: `TIDINGS_SECRET_KEY` (and
/// `TIDINGS_PREVIOUS_SECRET_KEYS`), or, when Tidings runs its own
/// PostgreSQL (the `make run` laptop mode) and no key is configured, a key
/// generated at first start and kept in the data folder beside the cluster
/// (mode 0600), like the admin token. A deployment with
/// `TIDINGS_DATABASE_URL` must configure one: a key made up at start would
/// not open the secrets after a restart or on another replica.
enum SecretKeyFile {
    static let fileName = "secret-key"

    static func resolve(configuration: Configuration, logger: Logger) throws -> SecretKeyring {
        if let configured = configuration.secretKey {
            return SecretKeyring(current: configured, previous: configuration.previousSecretKeys)
        }
        guard configuration.databaseURL == nil else {
            throw ConfigurationError.missingSecretKey
        }
        let file = DataFolderFile(named: fileName, configuration: configuration)
        if let text = try file.read() {
            do {
                let key = try SecretKey(hex: text)
                logger.notice("secret key loaded", metadata: ["secret_key.file": file.path, "secret_key.id": key.id])
                return SecretKeyring(current: key, previous: configuration.previousSecretKeys)
            } catch {
                // Not replaced silently: the secrets in the private database
                // were sealed with what this file held.
                throw ConfigurationError(variable: "TIDINGS_SECRET_KEY", message: "unset, and \(file.path) is unusable: it \(error)")
            }
        }
        let key = SecretKey.generate()
        try file.create(key.hex + "\n")
        logger.notice("secret key generated", metadata: ["secret_key.file": file.path, "secret_key.id": key.id])
        return SecretKeyring(current: key, previous: configuration.previousSecretKeys)
    }
}
