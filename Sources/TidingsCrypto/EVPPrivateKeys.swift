internal import CCrypto

/// What `SigningKey` and `P256KeyPair` share about OpenSSL's `EVP_PKEY`:
/// reading a PEM private key and naming its curve. Each caller maps the
/// answers to its own error type.
enum EVPPrivateKeys {
    /// Real key files are a few hundred bytes (P-256) to about 3 KiB (RSA
    /// 4096); anything far larger is not a key.
    static let maximumPEMLength = 16 * 1024
    /// OpenSSL's names of P-256 (its own, and the NIST one providers use).
    static let p256Names: Set<String> = ["prime256v1", "P-256"]

    /// An owned `EVP_PKEY` (free it with `EVP_PKEY_free`) from unencrypted
    /// PEM: PKCS#8 `PRIVATE KEY`, SEC1 `EC PRIVATE KEY` or PKCS#1 `RSA
    /// PRIVATE KEY`; nil for anything else, the error queue drained.
    static func read(pem bytes: [UInt8]) -> OpaquePointer? {
        guard !bytes.isEmpty, let length = Int32(exactly: bytes.count) else { return nil }
        let read: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, length) else { return nil }
            defer { BIO_free(bio) }
            // No passphrase callback and an empty passphrase: an encrypted
            // key fails here instead of prompting on the terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        if read == nil { _ = OpenSSLErrorQueue.drain() }
        return read
    }

    /// Whether `key` is an EC key at all.
    static func isEC(_ key: OpaquePointer) -> Bool {
        EVP_PKEY_get_base_id(key) == tidings_evp_pkey_ec
    }

    /// The curve of an EC key as OpenSSL names it (`prime256v1`,
    /// `secp384r1`), or nil when OpenSSL cannot say.
    static func curveName(of key: OpaquePointer) -> String? {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
