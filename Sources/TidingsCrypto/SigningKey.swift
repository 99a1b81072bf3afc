internal import CCrypto

/// A private key read from PEM that signs JSON Web Tokens: ES256 with a
/// P-256 key (APNs provider tokens, from Apple's `.p8` files; VAPID, from a
/// `P256KeyPair`) or RS256 with an RSA key of at least 2048 bits (Google
/// service accounts). Every OpenSSL return code is checked.
///
/// Sendable because the key is never changed after `init`, and OpenSSL 3
/// signs with one `EVP_PKEY` on several threads at once (each signature has
/// its own `EVP_MD_CTX`).
package final class SigningKey: @unchecked Sendable {
    package enum Algorithm: String, Sendable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    /// Real key files are a few hundred bytes (P-256) to about 3 KiB (RSA
    /// 4096); anything far larger is not a key.
    package static let maximumPEMLength = EVPPrivateKeys.maximumPEMLength
    private static let minimumRSABits: Int32 = 2048
    /// JOSE's ES256 signature: r and s, 32 bytes each (RFC 7518 3.4).
    private static let p256CoordinateLength: Int32 = 32

    package let algorithm: Algorithm
    private let key: OpaquePointer

    /// Reads an unencrypted PEM private key and checks it suits `algorithm`.
    package init(pem: String, algorithm: Algorithm) throws(SigningKeyError) {
        let bytes = Array(pem.utf8)
        guard bytes.count <= Self.maximumPEMLength else { throw .tooLarge(maximum: Self.maximumPEMLength) }
        guard let read = EVPPrivateKeys.read(pem: bytes) else { throw .unreadable }
        do throws(SigningKeyError) {
            try Self.check(read, suits: algorithm)
        } catch {
            EVP_PKEY_free(read)
            throw error
        }
        self.key = read
        self.algorithm = algorithm
    }

    /// The ES256 signer of a P-256 key pair (the VAPID key of Web Push):
    /// it shares the pair's `EVP_PKEY`, whose reference count OpenSSL keeps
    /// atomically, so each frees its own reference.
    package init(es256 keyPair: P256KeyPair) {
        precondition(EVP_PKEY_up_ref(keyPair.key) == 1, "EVP_PKEY_up_ref failed")
        self.key = keyPair.key
        self.algorithm = .es256
    }

    deinit {
        EVP_PKEY_free(key)
    }

    private static func check(_ key: OpaquePointer, suits algorithm: Algorithm) throws(SigningKeyError) {
        let type = EVP_PKEY_get_base_id(key)
        switch algorithm {
        case .es256:
            guard EVPPrivateKeys.isEC(key) else { throw .wrongKind("must be an EC private key on the P-256 curve") }
            guard let curve = EVPPrivateKeys.curveName(of: key) else { throw .wrongKind("must be on the P-256 curve") }
            guard EVPPrivateKeys.p256Names.contains(curve) else { throw .wrongKind("must be on the P-256 curve, not \(curve)") }
        case .rs256:
            guard type == tidings_evp_pkey_rsa else { throw .wrongKind("must be an RSA private key") }
            guard EVP_PKEY_get_bits(key) >= minimumRSABits else {
                throw .wrongKind("must be an RSA key of at least \(minimumRSABits) bits")
            }
        }
    }

    /// The signature of `message` in JOSE form: for ES256 the raw r || s
    /// (64 bytes; OpenSSL gives DER), for RS256 the PKCS#1 v1.5 signature.
    package func sign(_ message: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        signature.removeSubrange(length...)
        switch algorithm {
        case .rs256: return signature
        case .es256: return try Self.joseSignature(fromDER: signature)
        }
    }

    /// DER `ECDSA-Sig-Value` -> r || s, each left-padded to 32 bytes.
    private static func joseSignature(fromDER der: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        guard let r, let s else { throw .openSSL("ECDSA signature without r or s") }
        var output = [UInt8](repeating: 0, count: Int(p256CoordinateLength) * 2)
        let written = output.withUnsafeMutableBufferPointer { buffer in
            (
                BN_bn2binpad(r, buffer.baseAddress, p256CoordinateLength),
                BN_bn2binpad(s, buffer.baseAddress! + Int(p256CoordinateLength), p256CoordinateLength)
            )
        }
        guard written.0 == p256CoordinateLength, written.1 == p256CoordinateLength else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        return output
    }
}
