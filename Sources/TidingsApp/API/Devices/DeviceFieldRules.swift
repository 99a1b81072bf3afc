import TidingsDomain
import TidingsHTTPServer

/// Validation shared by the device registration and update bodies; the
/// limits match the CHECK constraints of the `devices` table.
enum DeviceFieldRules {
    static let pushTokenMaxLength = 4096
    static let appIDMaxLength = 255
    static let nameMaxLength = 200

    /// BCP 47 tags and POSIX-style locales alike (`en`, `pt-BR`, `zh_Hant_TW`):
    /// checked loosely, since the value is only passed on to the push payload.
    static func validateLocale<Key: CodingKey>(_ locale: String, key: Key, in container: KeyedDecodingContainer<Key>) throws {
        let allowed = locale.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_")
        }
        guard allowed, (2...35).contains(locale.unicodeScalars.count) else {
            throw container.fieldProblem(key, "must be a locale such as en or pt-BR (2 to 35 letters, digits, - or _)")
        }
    }
}
