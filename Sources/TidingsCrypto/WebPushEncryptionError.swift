/// Why a Web Push message cannot be encrypted, or a body decrypted. The
/// reasons are short and fixed; they never include key material or
/// plaintext.
package enum WebPushEncryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// More plaintext than fits a 4096-byte body.
    case plaintextTooLong(maximum: Int)
    /// The subscription's `auth` secret is not 16 bytes.
    case authSecretLength(Int)
    /// An injected salt that is not 16 bytes.
    case saltLength(Int)
    /// A record size below RFC 8188's 18 bytes, or too small for the
    /// plaintext's one record.
    case recordSize(UInt32)
    /// The subscription's `p256dh` is not a P-256 public key.
    case userAgentKey(P256KeyError)
    /// A body that is not one `aes128gcm` record from an ECDH key; the
    /// reason says which part.
    case malformedBody(String)
    /// The record's tag did not verify: another key or secret, or altered.
    case authenticationFailed
    /// OpenSSL failed outright (its error queue, drained).
    case openSSL(String)

    package var description: String {
        switch self {
        case .plaintextTooLong(let maximum): "the message must be at most \(maximum) bytes"
        case .authSecretLength(let count): "the auth secret must be 16 bytes, not \(count)"
        case .saltLength(let count): "the salt must be 16 bytes, not \(count)"
        case .recordSize(let size): "the record size \(size) is too small"
        case .userAgentKey(let error): "the p256dh key \(error)"
        case .malformedBody(let reason): "the body is not an aes128gcm message: \(reason)"
        case .authenticationFailed: "the body failed authentication"
        case .openSSL(let message): "OpenSSL failed: \(message)"
        }
    }
}

extension WebPushEncryptionError {
    /// What the key and cipher calls throw once inputs are checked: only
    /// OpenSSL failing, whose message is kept without a second prefix.
    static func failure(_ error: P256KeyError) -> WebPushEncryptionError {
        if case .openSSL(let message) = error { return .openSSL(message) }
        return .openSSL("\(error)")
    }

    static func failure(_ error: SecretError) -> WebPushEncryptionError {
        if case .openSSL(let message) = error { return .openSSL(message) }
        return .openSSL("\(error)")
    }
}
