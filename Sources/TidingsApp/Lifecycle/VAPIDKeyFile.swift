import Foundation
import TidingsCrypto
import TidingsDomain
import TidingsObservability

/// The deployment's VAPID key pair for Web Push: `TIDINGS_VAPID_PRIVATE_KEY`
/// with `TIDINGS_VAPID_SUBJECT`, or, when Tidings runs its own PostgreSQL
/// (the `make run` laptop mode) and no key is configured, a key generated
/// at first start and kept in the data folder as PKCS#8 PEM (mode 0600),
/// like the secret key, with `TIDINGS_VAPID_SUBJECT` or
/// `mailto:admin@localhost`. With `TIDINGS_DATABASE_URL` and no key, web
/// push is off: a key made up at start would differ between replicas and
/// restarts, and every browser subscription is tied to the key it was made
/// with.
enum VAPIDKeyFile {
    static let fileName = "vapid-private-key.pem"

    static func resolve(configuration: Configuration, logger: Logger) throws -> (key: P256KeyPair, subject: String)? {
        if let key = configuration.vapidPrivateKey {
            guard let subject = configuration.vapidSubject else {
                throw ConfigurationError(variable: "TIDINGS_VAPID_SUBJECT", message: "must be set when TIDINGS_VAPID_PRIVATE_KEY is")
            }
            return (key, subject)
        }
        guard configuration.databaseURL == nil else { return nil }
        let subject = configuration.vapidSubject ?? Configuration.defaultVAPIDSubject
        let file = DataFolderFile(named: fileName, configuration: configuration)
        if let text = try file.read() {
            do {
                let key = try P256KeyPair(pem: text)
                logger.notice("VAPID key loaded", metadata: ["vapid.file": file.path, "vapid.public_key": key.publicKeyBase64URL])
                return (key, subject)
            } catch {
                // Not replaced silently: browsers subscribed with this key.
                throw ConfigurationError(variable: "TIDINGS_VAPID_PRIVATE_KEY", message: "unset, and \(file.path) is unusable: it \(error)")
            }
        }
        let key = try P256KeyPair.generate()
        try file.create(try key.pkcs8PEM())
        logger.notice("VAPID key generated", metadata: ["vapid.file": file.path, "vapid.public_key": key.publicKeyBase64URL])
        return (key, subject)
    }

    /// Makes the database's Web Push app hold the resolved key, or removes
    /// it when web push is off; returns the public key (base64url) or nil.
    @discardableResult
    static func install(_ resolved: (key: P256KeyPair, subject: String)?, apps: PushAppStore, logger: Logger) throws -> String? {
        guard let (key, subject) = resolved else {
            if try apps.removeVAPIDKey() {
                logger.warning("web push is off (TIDINGS_VAPID_PRIVATE_KEY is not set): the Web Push app and its push log were removed")
            }
            return nil
        }
        let app = try apps.installVAPIDKey(publicKey: key.publicKeyBase64URL, subject: subject, privateKeyPEM: try key.pkcs8PEM())
        logger.info("web push is on", metadata: ["push_app.id": app.id.canonicalString, "vapid.public_key": key.publicKeyBase64URL])
        return key.publicKeyBase64URL
    }
}
