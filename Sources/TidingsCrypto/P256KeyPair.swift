internal import CCrypto

/// A P-256 private key with its public key: the deployment's VAPID key
/// (RFC 8292), which signs ES256 tokens through `SigningKey(es256:)`, and
/// the fresh key of each Web Push message (RFC 8291), which agrees a
/// secret with the browser's key (ECDH). Read from PEM or from the raw
/// private scalar that `web-push generate-vapid-keys` and py-vapid print;
/// written as PKCS#8 PEM so a generated key can be kept in a file.
///
/// Sendable because the key is never changed after `init`, and OpenSSL 3
/// signs and derives with one `EVP_PKEY` on several threads at once (each
/// operation has its own context).
package final class P256KeyPair: @unchecked Sendable {
    package static let privateKeyByteCount = 32
    /// The order n of P-256's base point (SEC 2, 2.4.2), big-endian: a
    /// private scalar lies in 1..<n. OpenSSL's SEC1 reader takes 0 and n
    /// without complaint, so this is checked here.
    private static let order: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]

    let key: OpaquePointer
    /// The public key, uncompressed: 0x04 || X || Y.
    package let publicKeyBytes: [UInt8]

    /// Takes ownership of `key`, an EC key on P-256, and frees it if its
    /// public key cannot be read.
    private init(owning key: OpaquePointer) throws(P256KeyError) {
        var point = [UInt8](repeating: 0, count: P256PublicKey.byteCount)
        var length = 0
        let read = OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY.withCString { name in
            EVP_PKEY_get_octet_string_param(key, name, &point, point.count, &length)
        }
        guard read == 1, length == P256PublicKey.byteCount, point[0] == 0x04 else {
            EVP_PKEY_free(key)
            throw .openSSL(read == 1 ? "the public key is not a 65-byte uncompressed point" : OpenSSLErrorQueue.drain())
        }
        self.key = key
        self.publicKeyBytes = point
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// A new key pair from OpenSSL's DRBG.
    package static func generate() throws(P256KeyError) -> P256KeyPair {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else {
            throw .openSSL(OpenSSLErrorQueue.drain())
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        return try P256KeyPair(owning: key)
    }

    /// Reads an unencrypted PEM private key, PKCS#8 (`PRIVATE KEY`) or SEC1
    /// (`EC PRIVATE KEY`), and checks it is on P-256.
    package convenience init(pem: String) throws(P256KeyError) {
        let bytes = Array(pem.utf8)
        guard bytes.count <= EVPPrivateKeys.maximumPEMLength else { throw .tooLarge(maximum: EVPPrivateKeys.maximumPEMLength) }
        guard let read = EVPPrivateKeys.read(pem: bytes) else { throw .unreadable }
        guard EVPPrivateKeys.isEC(read) else {
            EVP_PKEY_free(read)
            throw .wrongKind("must be an EC private key on the P-256 curve")
        }
        let curve = EVPPrivateKeys.curveName(of: read)
        guard let curve, EVPPrivateKeys.p256Names.contains(curve) else {
            EVP_PKEY_free(read)
            throw .wrongKind("must be on the P-256 curve" + (curve.map { ", not \($0)" } ?? ""))
        }
        try self.init(owning: read)
    }

    /// Reads the raw 32-byte private scalar, big-endian; the public key is
    /// computed from it.
    package convenience init(privateKey scalar: [UInt8]) throws(P256KeyError) {
        guard scalar.count == Self.privateKeyByteCount else {
            throw .wrongLength(expected: Self.privateKeyByteCount, actual: scalar.count)
        }
        // Big-endian bytes of equal length compare as the numbers do.
        guard scalar.contains(where: { $0 != 0 }), scalar.lexicographicallyPrecedes(Self.order) else { throw .scalarOutOfRange }
        // SEC1 ECPrivateKey { version 1, privateKey, [0] prime256v1 }
        // without the optional public key, which OpenSSL computes on
        // reading (d2i_PrivateKey is not deprecated; EC_KEY calls are).
        let der: [UInt8] =
            [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar
            + [0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
        let read: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PrivateKey(tidings_evp_pkey_ec, nil, &cursor, buffer.count)
        }
        guard let read else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        try self.init(owning: read)
    }

    /// Reads base64url of the raw private scalar (43 characters), as
    /// `web-push generate-vapid-keys` and py-vapid print it.
    package convenience init(base64URLPrivateKey text: String) throws(P256KeyError) {
        // 32 bytes are 43 characters; a little room for padding.
        guard text.utf8.count <= 48 else { throw .tooLarge(maximum: Self.privateKeyByteCount) }
        guard let scalar = Base64.decode(text) else { throw .notBase64URL }
        try self.init(privateKey: scalar)
    }

    /// The public key as base64url without padding: the `k=` of a VAPID
    /// header, the `applicationServerKey` a browser subscribes with.
    package var publicKeyBase64URL: String {
        Base64.encodeURLSafe(publicKeyBytes)
    }

    /// The private key as unencrypted PKCS#8 PEM (`PRIVATE KEY`), for a
    /// file only the service reads. A key read from its raw scalar is
    /// written without the optional public key, which readers compute.
    package func pkcs8PEM() throws(P256KeyError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        let pending = BIO_ctrl_pending(bio)
        guard pending > 0, let length = Int32(exactly: pending) else { throw .openSSL("PEM_write_bio_PKCS8PrivateKey wrote nothing") }
        var pem = [UInt8](repeating: 0, count: pending)
        guard BIO_read(bio, &pem, length) == length else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        return String(decoding: pem, as: UTF8.self)
    }

    /// ECDH: the 32-byte shared secret (the x coordinate of the product)
    /// of this private key and `peer`.
    package func sharedSecret(with peer: P256PublicKey) throws(P256KeyError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        // No second validation of the peer: P256PublicKey only holds points
        // OpenSSL found on the curve, and P-256's cofactor is 1, so each is
        // in the prime-order group. OpenSSL's own check would multiply the
        // point by the order, a second scalar multiplication per message.
        guard EVP_PKEY_derive_set_peer_ex(context, peer.key, 0) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        return secret
    }
}
