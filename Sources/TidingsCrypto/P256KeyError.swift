/// Why bytes or text are not a usable P-256 key. Messages never include
/// key material.
package enum P256KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a PEM private key OpenSSL can read (or one with a passphrase).
    case unreadable
    /// Larger than any real key, refused before reading it.
    case tooLarge(maximum: Int)
    /// A key of another kind or on another curve.
    case wrongKind(String)
    /// Not base64url (or base64) text.
    case notBase64URL
    /// Decoded to the wrong number of bytes.
    case wrongLength(expected: Int, actual: Int)
    /// A public key that is not the uncompressed form 0x04 || X || Y.
    case notUncompressedPoint
    /// A public key whose coordinates are not a point of P-256.
    case notOnCurve
    /// A private scalar that is zero or not below the group order.
    case scalarOutOfRange
    /// OpenSSL failed outright (its error queue, drained).
    case openSSL(String)

    package var description: String {
        switch self {
        case .unreadable: "is not a PEM private key (unencrypted PKCS#8 or SEC1 EC)"
        case .tooLarge(let maximum): "must be at most \(maximum) bytes"
        case .wrongKind(let message): message
        case .notBase64URL: "is not base64url"
        case .wrongLength(let expected, let actual): "must be \(expected) bytes, not \(actual)"
        case .notUncompressedPoint: "must be an uncompressed P-256 point (starting with 0x04)"
        case .notOnCurve: "is not a point on the P-256 curve"
        case .scalarOutOfRange: "is not a valid P-256 private key (zero, or not below the group order)"
        case .openSSL(let message): "OpenSSL failed: \(message)"
        }
    }
}
