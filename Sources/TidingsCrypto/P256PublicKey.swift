internal import CCrypto

/// A P-256 public key from its 65-byte uncompressed form 0x04 || X || Y:
/// a browser's `p256dh` (RFC 8291), the key id of an `aes128gcm` body. The
/// bytes are read as hostile: wrong length, another form (compressed,
/// hybrid) and points off the curve are typed errors, never traps.
///
/// Sendable because the key is never changed after `init`, and OpenSSL 3
/// reads one `EVP_PKEY` from several threads at once (each key agreement
/// has its own `EVP_PKEY_CTX`).
package final class P256PublicKey: @unchecked Sendable, Equatable, CustomStringConvertible {
    package static let byteCount = 65

    /// 0x04 || X || Y.
    package let bytes: [UInt8]
    let key: OpaquePointer

    package init(bytes: [UInt8]) throws(P256KeyError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(expected: Self.byteCount, actual: bytes.count) }
        guard bytes[0] == 0x04 else { throw .notUncompressedPoint }
        // Length and form are right, so what OpenSSL still refuses is the
        // point: off the curve, or a coordinate not below the field prime
        // (EC_POINT_oct2point checks both).
        guard let key = EVPPublicKeys.p256(point: bytes) else {
            _ = OpenSSLErrorQueue.drain()
            throw .notOnCurve
        }
        self.bytes = bytes
        self.key = key
    }

    /// Reads base64url (as `keys.p256dh` of a `PushSubscription` is sent).
    package convenience init(base64URL text: String) throws(P256KeyError) {
        // 65 bytes are 87 characters; a little room for padding.
        guard text.utf8.count <= 96 else { throw .tooLarge(maximum: Self.byteCount) }
        guard let bytes = Base64.decode(text) else { throw .notBase64URL }
        try self.init(bytes: bytes)
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// base64url without padding, the form of `k=` in a VAPID header.
    package var base64URL: String {
        Base64.encodeURLSafe(bytes)
    }

    package var description: String {
        "P256PublicKey(\(base64URL))"
    }

    package static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.bytes == rhs.bytes
    }
}

/// Public keys from their encoded point, through OpenSSL 3's
/// `EVP_PKEY_fromdata` (the replacement of the deprecated `EC_KEY` calls).
enum EVPPublicKeys {
    /// An owned `EVP_PKEY` of `point` on P-256, or nil when OpenSSL refuses
    /// it (its reason left on the error queue).
    static func p256(point: [UInt8]) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { return nil }
        var point = point
        var curve = Array("prime256v1".utf8CString)
        // OSSL_PARAMs hold pointers to their names and values, so every
        // buffer stays alive until EVP_PKEY_fromdata has copied the key.
        return OSSL_PKEY_PARAM_GROUP_NAME.withCString { groupName in
            OSSL_PKEY_PARAM_PUB_KEY.withCString { publicKeyName in
                curve.withUnsafeMutableBufferPointer { curveBuffer in
                    point.withUnsafeMutableBytes { pointBuffer in
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(groupName, curveBuffer.baseAddress, 0),
                            OSSL_PARAM_construct_octet_string(publicKeyName, pointBuffer.baseAddress, pointBuffer.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        var key: OpaquePointer?
                        guard EVP_PKEY_fromdata(context, &key, tidings_evp_pkey_public_key, &parameters) == 1 else { return nil }
                        return key
                    }
                }
            }
        }
    }
}
