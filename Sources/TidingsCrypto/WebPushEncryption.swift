/// Web Push message encryption (RFC 8291) in the `aes128gcm` content
/// coding (RFC 8188), as one record: pure functions of their inputs, so the
/// RFC's worked example is a test.
///
/// The body is `salt (16) || rs (uint32, big-endian) || idlen (1) = 65 ||
/// the sender's ephemeral public key (65) || AES-128-GCM(plaintext ||
/// 0x02) || tag (16)`. Keys (RFC 8291 3.4, RFC 8188 2.2 and 2.3):
///
///     ecdh_secret = ECDH(as_private, ua_public)
///     IKM   = HKDF(salt: auth_secret, ikm: ecdh_secret,
///                  info: "WebPush: info" || 0x00 || ua_public || as_public, 32)
///     CEK   = HKDF(salt: salt, ikm: IKM, info: "Content-Encoding: aes128gcm" || 0x00, 16)
///     NONCE = HKDF(salt: salt, ikm: IKM, info: "Content-Encoding: nonce" || 0x00, 12)
///
/// (the nonce of the first and only record is NONCE itself).
package enum WebPushEncryption {
    package static let authSecretByteCount = 16
    package static let saltByteCount = 16
    /// What push services must accept (RFC 8030 7.2) and the body's limit here.
    package static let maximumBodyByteCount = 4096
    package static let defaultRecordSize: UInt32 = 4096
    /// salt, rs, idlen and the 65-byte key id.
    package static let headerByteCount = 16 + 4 + 1 + P256PublicKey.byteCount
    /// 3993: the body's limit less the header, the delimiter and the tag.
    package static let maximumPlaintextByteCount = maximumBodyByteCount - headerByteCount - 1 - AES128GCM.tagByteCount
    /// RFC 8188 2.1: a record holds at least the delimiter and the tag.
    private static let minimumRecordSize: UInt32 = 18
    /// The padding delimiter of the last record (RFC 8188 2).
    private static let lastRecordDelimiter: UInt8 = 0x02

    private static let keyInfo = Array("WebPush: info\0".utf8)
    private static let contentKeyInfo = Array("Content-Encoding: aes128gcm\0".utf8)
    private static let nonceInfo = Array("Content-Encoding: nonce\0".utf8)

    /// Encrypts `plaintext` for a subscription with a fresh ephemeral key
    /// and a random salt: what a push sends.
    package static func encrypt(
        plaintext: [UInt8], userAgentPublicKey: [UInt8], authSecret: [UInt8]
    ) throws(WebPushEncryptionError) -> [UInt8] {
        let ephemeralKey: P256KeyPair
        do {
            ephemeralKey = try P256KeyPair.generate()
        } catch {
            throw .failure(error)
        }
        return try encrypt(
            plaintext: plaintext, userAgentPublicKey: userAgentPublicKey, authSecret: authSecret,
            ephemeralKey: ephemeralKey, salt: SecureRandom.bytes(count: saltByteCount))
    }

    /// Encrypts `plaintext` with the given ephemeral key and salt. Use it
    /// only for test vectors: both must be new for every message.
    /// `userAgentPublicKey` is the subscription's `p256dh`, decoded.
    package static func encrypt(
        plaintext: [UInt8], userAgentPublicKey: [UInt8], authSecret: [UInt8],
        ephemeralKey: P256KeyPair, salt: [UInt8], recordSize: UInt32 = defaultRecordSize
    ) throws(WebPushEncryptionError) -> [UInt8] {
        guard plaintext.count <= maximumPlaintextByteCount else { throw .plaintextTooLong(maximum: maximumPlaintextByteCount) }
        guard authSecret.count == authSecretByteCount else { throw .authSecretLength(authSecret.count) }
        guard salt.count == saltByteCount else { throw .saltLength(salt.count) }
        // One record: the plaintext, its delimiter and the tag within rs.
        guard recordSize >= minimumRecordSize, UInt32(plaintext.count + 1 + AES128GCM.tagByteCount) <= recordSize else {
            throw .recordSize(recordSize)
        }
        let userAgentKey: P256PublicKey
        do {
            userAgentKey = try P256PublicKey(bytes: userAgentPublicKey)
        } catch {
            throw .userAgentKey(error)
        }
        let keys = try contentKeys(
            privateKey: ephemeralKey, peer: userAgentKey, userAgentPublicKey: userAgentKey.bytes,
            senderPublicKey: ephemeralKey.publicKeyBytes, authSecret: authSecret, salt: salt)
        let sealed: (ciphertext: [UInt8], tag: [UInt8])
        do {
            sealed = try AES128GCM.seal(plaintext + [lastRecordDelimiter], key: keys.key, nonce: keys.nonce, authenticatedData: [])
        } catch {
            throw .failure(error)
        }
        var body: [UInt8] = []
        body.reserveCapacity(headerByteCount + plaintext.count + 1 + AES128GCM.tagByteCount)
        body += salt
        body += [
            UInt8(truncatingIfNeeded: recordSize >> 24), UInt8(truncatingIfNeeded: recordSize >> 16),
            UInt8(truncatingIfNeeded: recordSize >> 8), UInt8(truncatingIfNeeded: recordSize),
        ]
        body.append(UInt8(P256PublicKey.byteCount))
        body += ephemeralKey.publicKeyBytes
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    /// The browser's side: the plaintext of a one-record `aes128gcm` body
    /// for the subscription key `userAgentKey`. For tests, mock push
    /// services and fuzzing; the body is read as hostile, so anything but
    /// a well-formed message is a typed error.
    package static func decrypt(
        body: [UInt8], userAgentKey: P256KeyPair, authSecret: [UInt8]
    ) throws(WebPushEncryptionError) -> [UInt8] {
        guard authSecret.count == authSecretByteCount else { throw .authSecretLength(authSecret.count) }
        guard body.count >= headerByteCount else { throw .malformedBody("shorter than its header") }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard recordSize >= minimumRecordSize else { throw .malformedBody("record size below 18") }
        guard body[20] == P256PublicKey.byteCount else { throw .malformedBody("key id is not 65 bytes") }
        let record = body[headerByteCount...]
        guard record.count >= 1 + AES128GCM.tagByteCount else { throw .malformedBody("record shorter than its tag") }
        guard record.count <= recordSize else { throw .malformedBody("more than one record") }
        let senderKey: P256PublicKey
        do {
            senderKey = try P256PublicKey(bytes: Array(body[21..<headerByteCount]))
        } catch {
            throw .malformedBody("key id is not a P-256 public key")
        }
        let keys = try contentKeys(
            privateKey: userAgentKey, peer: senderKey, userAgentPublicKey: userAgentKey.publicKeyBytes,
            senderPublicKey: senderKey.bytes, authSecret: authSecret, salt: salt)
        let padded: [UInt8]
        do {
            padded = try AES128GCM.open(
                Array(record.dropLast(AES128GCM.tagByteCount)), tag: Array(record.suffix(AES128GCM.tagByteCount)),
                key: keys.key, nonce: keys.nonce, authenticatedData: [])
        } catch .authenticationFailed {
            throw .authenticationFailed
        } catch {
            throw .failure(error)
        }
        // Padding is zeros after the delimiter; the last record's is 0x02.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == lastRecordDelimiter else {
            throw .malformedBody("no last-record delimiter")
        }
        return Array(padded[..<delimiter])
    }

    /// CEK and NONCE of RFC 8291 3.4 from one side's private key and the
    /// other side's public key.
    private static func contentKeys(
        privateKey: P256KeyPair, peer: P256PublicKey, userAgentPublicKey: [UInt8], senderPublicKey: [UInt8],
        authSecret: [UInt8], salt: [UInt8]
    ) throws(WebPushEncryptionError) -> (key: [UInt8], nonce: [UInt8]) {
        let sharedSecret: [UInt8]
        do {
            sharedSecret = try privateKey.sharedSecret(with: peer)
        } catch {
            throw .failure(error)
        }
        let keyPRK = HKDFSHA256.extract(salt: authSecret, inputKeyingMaterial: sharedSecret)
        let ikm = HKDFSHA256.expand(pseudorandomKey: keyPRK, info: keyInfo + userAgentPublicKey + senderPublicKey, outputByteCount: 32)
        let prk = HKDFSHA256.extract(salt: salt, inputKeyingMaterial: ikm)
        return (
            HKDFSHA256.expand(pseudorandomKey: prk, info: contentKeyInfo, outputByteCount: AES128GCM.keyByteCount),
            HKDFSHA256.expand(pseudorandomKey: prk, info: nonceInfo, outputByteCount: AES128GCM.nonceByteCount)
        )
    }
}
