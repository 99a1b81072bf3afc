/// AES-128-GCM: 16-byte key, 96-bit nonce, 128-bit tag; the cipher of Web
/// Push's `aes128gcm` content coding (RFC 8188). `AESGCM` does the work.
package enum AES128GCM {
    package static let keyByteCount = AESGCM.KeySize.bits128.byteCount
    package static let nonceByteCount = AESGCM.nonceByteCount
    package static let tagByteCount = AESGCM.tagByteCount

    /// Encrypts `plaintext`; `authenticatedData` is bound to the result
    /// without being part of it (the same bytes must be given to `open`).
    package static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticatedData: [UInt8]
    ) throws(SecretError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        try AESGCM.seal(plaintext, key: key, nonce: nonce, authenticatedData: authenticatedData, keySize: .bits128)
    }

    /// Decrypts and authenticates; any change to the ciphertext, tag, nonce
    /// or authenticated data, or another key, is `.authenticationFailed`.
    package static func open(
        _ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8], authenticatedData: [UInt8]
    ) throws(SecretError) -> [UInt8] {
        try AESGCM.open(ciphertext, tag: tag, key: key, nonce: nonce, authenticatedData: authenticatedData, keySize: .bits128)
    }
}
