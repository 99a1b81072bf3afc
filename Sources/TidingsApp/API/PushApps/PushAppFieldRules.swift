import TidingsCrypto
import TidingsDomain
import TidingsHTTPServer

/// Validation shared by the push app bodies; lengths match the CHECK
/// constraints of `push_apps`. Problems never quote a private key.
enum PushAppFieldRules {
    static let appIDMaxLength = 255

    /// Bundle ids and Android package names: letters, digits, `.`, `-`, `_`.
    static func validateAppID<Key: CodingKey>(_ appID: String, key: Key, in container: KeyedDecodingContainer<Key>) throws {
        let allowed = appID.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0))
        }
        guard allowed, (1...appIDMaxLength).contains(appID.unicodeScalars.count) else {
            throw container.fieldProblem(
                key, "must be a bundle id or package name such as com.example.app (1 to \(appIDMaxLength) letters, digits, '.', '-' or '_')"
            )
        }
    }

    /// Apple's team and key ids: 10 letters or digits today; up to 64 kept.
    static func validateAppleID<Key: CodingKey>(_ id: String, key: Key, in container: KeyedDecodingContainer<Key>) throws {
        let allowed = id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        guard allowed, (1...64).contains(id.unicodeScalars.count) else {
            throw container.fieldProblem(key, "must be Apple's identifier: letters and digits, such as ABCDE12345")
        }
    }

    /// The PEM key, read and checked for `algorithm` now, so a bad key is a
    /// 422 here rather than failed pushes later.
    static func validatePrivateKey<Key: CodingKey>(
        _ pem: String, algorithm: SigningKey.Algorithm, key: Key, in container: KeyedDecodingContainer<Key>
    ) throws {
        do {
            _ = try SigningKey(pem: pem, algorithm: algorithm)
        } catch {
            throw container.fieldProblem(key, error.description)
        }
    }
}
