/// Why a stored secret cannot be sealed or opened. Messages never include
/// the secret or any key material.
package enum SecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not in the `enc:v1:<key id>:<base64>` form.
    case malformed
    /// An `enc:` value of a format version this build does not know.
    case unsupportedVersion(String)
    /// Sealed under a key that is neither the current key nor a previous one.
    case unknownKey(id: String)
    /// The tag did not verify: the value was altered, or it was sealed for
    /// another purpose, or under another key with a colliding id.
    case authenticationFailed
    /// The plaintext is not UTF-8 text.
    case notText
    /// Larger than OpenSSL's `int` lengths allow.
    case tooLong
    /// OpenSSL failed outright (its error queue, drained).
    case openSSL(String)

    package var description: String {
        switch self {
        case .malformed: "the stored value is not an encrypted secret (enc:v1:<key id>:<base64>)"
        case .unsupportedVersion(let version):
            "the stored value uses encryption format \(version), which this version of Tidings does not read"
        case .unknownKey(let id):
            "the stored value is encrypted under key \(id), which is neither the current secret key nor one of the previous ones"
        case .authenticationFailed:
            "the stored value failed authentication: it was altered, or the key with its id is not the key it was encrypted with"
        case .notText: "the decrypted value is not UTF-8 text"
        case .tooLong: "the value is too long to encrypt"
        case .openSSL(let message): "OpenSSL failed: \(message)"
        }
    }
}
