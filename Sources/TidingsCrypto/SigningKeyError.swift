/// Why a private key cannot be used to sign. Messages never include key
/// material.
package enum SigningKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a PEM private key OpenSSL can read (or one with a passphrase).
    case unreadable
    /// Larger than any real key file.
    case tooLarge(maximum: Int)
    /// A key of another kind than the algorithm needs.
    case wrongKind(String)
    /// OpenSSL failed outright (its error queue, drained).
    case openSSL(String)

    package var description: String {
        switch self {
        case .unreadable: "is not a PEM private key (unencrypted PKCS#8, EC or RSA)"
        case .tooLarge(let maximum): "must be at most \(maximum) bytes"
        case .wrongKind(let message): message
        case .openSSL(let message): "OpenSSL failed: \(message)"
        }
    }
}
