import Foundation
import TidingsCrypto

extension Configuration {
    /// The contact a generated VAPID key's tokens name when
    /// `TIDINGS_VAPID_SUBJECT` is unset (private-database mode only).
    static let defaultVAPIDSubject = "mailto:admin@localhost"

    /// `TIDINGS_VAPID_PRIVATE_KEY` (a P-256 private key: PEM, PKCS#8 or
    /// SEC1, with real or `\n`-escaped line breaks, or the base64url raw
    /// scalar that `web-push generate-vapid-keys` prints) and
    /// `TIDINGS_VAPID_SUBJECT` (`mailto:` or `https:`), which the key needs.
    /// Neither value is ever quoted in an error: the key is a secret.
    /// A subject alone is for the key generated into the data folder, so
    /// with `TIDINGS_DATABASE_URL` it is an error too.
    static func webPushSettings(
        _ environment: [String: String], hasDatabaseURL: Bool
    ) throws(ConfigurationError) -> (key: P256KeyPair?, subject: String?) {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingWhitespace(), !text.isEmpty else { return nil }
            return text
        }
        let subject = value("TIDINGS_VAPID_SUBJECT")
        if let subject, !isVAPIDSubject(subject) {
            throw ConfigurationError(
                variable: "TIDINGS_VAPID_SUBJECT",
                message:
                    "must be a mailto: or https: URI of visible ASCII, such as mailto:ops@example.com (push services write to it about problems)"
            )
        }
        guard let text = value("TIDINGS_VAPID_PRIVATE_KEY") else {
            if subject != nil && hasDatabaseURL {
                throw ConfigurationError(
                    variable: "TIDINGS_VAPID_SUBJECT",
                    message: "is set but TIDINGS_VAPID_PRIVATE_KEY is not: set both to turn web push on"
                )
            }
            return (nil, subject)
        }
        let key: P256KeyPair
        do {
            key = try vapidKey(text)
        } catch {
            throw ConfigurationError(
                variable: "TIDINGS_VAPID_PRIVATE_KEY",
                message:
                    "\(error); expected a P-256 private key as PEM or as the base64url private scalar (`npx web-push generate-vapid-keys`, `openssl ecparam -name prime256v1 -genkey -noout`)"
            )
        }
        guard let subject else {
            throw ConfigurationError(
                variable: "TIDINGS_VAPID_SUBJECT",
                message:
                    "must be set when TIDINGS_VAPID_PRIVATE_KEY is: a mailto: or https: contact for the push services, such as mailto:ops@example.com"
            )
        }
        return (key, subject)
    }

    /// A PEM (line breaks real or written as `\n`) or a base64url scalar.
    static func vapidKey(_ text: String) throws(P256KeyError) -> P256KeyPair {
        if text.hasPrefix("-----BEGIN") {
            let pem = text.replacingOccurrences(of: "\\n", with: "\n")
            return try P256KeyPair(pem: pem.hasSuffix("\n") ? pem : pem + "\n")
        }
        return try P256KeyPair(base64URLPrivateKey: text)
    }

    /// What `VAPIDClaims` accepts as `sub`.
    static func isVAPIDSubject(_ text: String) -> Bool {
        (try? VAPIDClaims(audience: "https://push.example", subject: text, expiresAt: 2, now: 1)) != nil
    }
}
