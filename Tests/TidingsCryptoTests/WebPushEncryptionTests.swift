import Testing
import TidingsCrypto

@Suite struct WebPushEncryptionTests {
    static let browser = try! P256KeyPair(base64URLPrivateKey: RFC8291Example.userAgentPrivateKey)
    static let authSecret = Base64.decode(RFC8291Example.authSecret)!
    static let plaintext = Array(RFC8291Example.plaintext.utf8)

    /// RFC 8291 appendix A: the example's keys, secret and salt give its
    /// body byte for byte, and the body decrypts to its plaintext.
    @Test func rfc8291Example() throws {
        let body = try WebPushEncryption.encrypt(
            plaintext: Self.plaintext, userAgentPublicKey: Self.browser.publicKeyBytes, authSecret: Self.authSecret,
            ephemeralKey: P256KeyPair(base64URLPrivateKey: RFC8291Example.applicationServerPrivateKey),
            salt: Base64.decode(RFC8291Example.salt)!)
        #expect(Base64.encodeURLSafe(body) == RFC8291Example.body)
        let decrypted = try WebPushEncryption.decrypt(
            body: Base64.decode(RFC8291Example.body)!, userAgentKey: Self.browser, authSecret: Self.authSecret)
        #expect(decrypted == Self.plaintext)
    }

    /// The example's intermediate values (RFC 8291 appendix A), derived
    /// here step by step from HMAC: the test's own reading of section 3.4.
    @Test func rfc8291IntermediateValues() throws {
        let keys = try Self.contentKeys(body: Base64.decode(RFC8291Example.body)!, userAgentKey: Self.browser)
        #expect(Base64.encodeURLSafe(keys.prkKey) == "Snr3JMxaHVDXHWJn5wdC52WjpCtd2EIEGBykDcZW32k")
        #expect(Base64.encodeURLSafe(keys.ikm) == "S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg")
        #expect(Base64.encodeURLSafe(keys.prk) == "09_eUZGrsvxChDCGRCdkLiDXrReGOEVeSCdCcPBSJSc")
        #expect(Base64.encodeURLSafe(keys.cek) == "oIhVW04MRdy2XN9CiKLxTg")
        #expect(Base64.encodeURLSafe(keys.nonce) == "4h_95klXJ5E_qnoN")
    }

    @Test(arguments: [0, 1, 41, 1000, WebPushEncryption.maximumPlaintextByteCount])
    func roundTrips(length: Int) throws {
        // Ends in zeros and 0x02 on purpose: padding is found from the
        // end, after the delimiter WebPushEncryption adds, not in the text.
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) } + (length > 3 ? [2, 0, 0] : [])
        let clipped = Array(plaintext.prefix(WebPushEncryption.maximumPlaintextByteCount))
        let body = try WebPushEncryption.encrypt(
            plaintext: clipped, userAgentPublicKey: Self.browser.publicKeyBytes, authSecret: Self.authSecret)
        #expect(body.count == 86 + clipped.count + 1 + 16)
        #expect(body.count <= 4096)
        #expect(Array(body[16..<21]) == [0, 0, 0x10, 0, 65])
        #expect(try WebPushEncryption.decrypt(body: body, userAgentKey: Self.browser, authSecret: Self.authSecret) == clipped)
    }

    /// A fresh ephemeral key and salt every time: the same message never
    /// gives the same body, salt or key.
    @Test func everyMessageHasItsOwnKeyAndSalt() throws {
        let bodies = try (0..<50).map { _ in
            try WebPushEncryption.encrypt(
                plaintext: Self.plaintext, userAgentPublicKey: Self.browser.publicKeyBytes, authSecret: Self.authSecret)
        }
        #expect(Set(bodies).count == 50)
        #expect(Set(bodies.map { Array($0[0..<16]) }).count == 50)
        #expect(Set(bodies.map { Array($0[21..<86]) }).count == 50)
        for body in bodies {
            #expect(try WebPushEncryption.decrypt(body: body, userAgentKey: Self.browser, authSecret: Self.authSecret) == Self.plaintext)
        }
    }

    @Test func refusesWhatCannotBeSent() throws {
        let key = Self.browser.publicKeyBytes
        #expect(throws: WebPushEncryptionError.plaintextTooLong(maximum: 3993)) {
            try WebPushEncryption.encrypt(
                plaintext: [UInt8](repeating: 0x41, count: 3994), userAgentPublicKey: key, authSecret: Self.authSecret)
        }
        #expect(throws: WebPushEncryptionError.plaintextTooLong(maximum: 3993)) {
            try WebPushEncryption.encrypt(
                plaintext: [UInt8](repeating: 0x41, count: 1_000_000), userAgentPublicKey: key, authSecret: Self.authSecret)
        }
        for count in [0, 15, 17, 32] {
            #expect(throws: WebPushEncryptionError.authSecretLength(count)) {
                try WebPushEncryption.encrypt(
                    plaintext: Self.plaintext, userAgentPublicKey: key, authSecret: [UInt8](repeating: 1, count: count))
            }
        }
        var offCurve = key
        offCurve[40] ^= 0x01
        #expect(throws: WebPushEncryptionError.userAgentKey(.notOnCurve)) {
            try WebPushEncryption.encrypt(plaintext: Self.plaintext, userAgentPublicKey: offCurve, authSecret: Self.authSecret)
        }
        #expect(throws: WebPushEncryptionError.userAgentKey(.wrongLength(expected: 65, actual: 0))) {
            try WebPushEncryption.encrypt(plaintext: Self.plaintext, userAgentPublicKey: [], authSecret: Self.authSecret)
        }
        #expect(throws: WebPushEncryptionError.userAgentKey(.notUncompressedPoint)) {
            try WebPushEncryption.encrypt(
                plaintext: Self.plaintext, userAgentPublicKey: [0x02] + key.dropFirst(), authSecret: Self.authSecret)
        }
        let ephemeral = try P256KeyPair.generate()
        #expect(throws: WebPushEncryptionError.saltLength(15)) {
            try WebPushEncryption.encrypt(
                plaintext: Self.plaintext, userAgentPublicKey: key, authSecret: Self.authSecret,
                ephemeralKey: ephemeral, salt: [UInt8](repeating: 0, count: 15))
        }
        for recordSize: UInt32 in [0, 17, UInt32(Self.plaintext.count + 16)] {
            #expect(throws: WebPushEncryptionError.recordSize(recordSize)) {
                try WebPushEncryption.encrypt(
                    plaintext: Self.plaintext, userAgentPublicKey: key, authSecret: Self.authSecret,
                    ephemeralKey: ephemeral, salt: [UInt8](repeating: 0, count: 16), recordSize: recordSize)
            }
        }
        // The smallest record size that holds it.
        let tight = try WebPushEncryption.encrypt(
            plaintext: Self.plaintext, userAgentPublicKey: key, authSecret: Self.authSecret,
            ephemeralKey: ephemeral, salt: [UInt8](repeating: 0, count: 16),
            recordSize: UInt32(Self.plaintext.count + 17))
        #expect(try WebPushEncryption.decrypt(body: tight, userAgentKey: Self.browser, authSecret: Self.authSecret) == Self.plaintext)
    }

    /// Hostile bodies: each a typed error with its reason, never a trap.
    @Test func refusesMalformedBodies() throws {
        let body = Base64.decode(RFC8291Example.body)!
        func decrypt(_ bytes: [UInt8], key: P256KeyPair = Self.browser, secret: [UInt8] = Self.authSecret) throws(WebPushEncryptionError) {
            _ = try WebPushEncryption.decrypt(body: bytes, userAgentKey: key, authSecret: secret)
        }
        func edited(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
            var copy = body
            edit(&copy)
            return copy
        }
        for short in [[], Array(body.prefix(20)), Array(body.prefix(85))] {
            #expect(throws: WebPushEncryptionError.malformedBody("shorter than its header")) { try decrypt(short) }
        }
        for truncated in [Array(body.prefix(86)), Array(body.prefix(86 + 16))] {
            #expect(throws: WebPushEncryptionError.malformedBody("record shorter than its tag")) { try decrypt(truncated) }
        }
        #expect(throws: WebPushEncryptionError.malformedBody("record size below 18")) {
            try decrypt(
                edited {
                    $0[18] = 0; $0[19] = 17
                })
        }
        #expect(throws: WebPushEncryptionError.malformedBody("more than one record")) {
            try decrypt(
                edited {
                    $0[18] = 0; $0[19] = 40
                })
        }
        #expect(throws: WebPushEncryptionError.malformedBody("more than one record")) {
            try decrypt(body + [UInt8](repeating: 0, count: 4096))
        }
        for idlen: UInt8 in [0, 33, 64, 66, 255] {
            #expect(throws: WebPushEncryptionError.malformedBody("key id is not 65 bytes")) { try decrypt(edited { $0[20] = idlen }) }
        }
        #expect(throws: WebPushEncryptionError.malformedBody("key id is not a P-256 public key")) { try decrypt(edited { $0[50] ^= 1 }) }
        #expect(throws: WebPushEncryptionError.malformedBody("key id is not a P-256 public key")) { try decrypt(edited { $0[21] = 0x02 }) }
        // Altered salt, record or tag; another subscription's key or secret.
        for index in [0, 15, 86, 100, body.count - 1] {
            #expect(throws: WebPushEncryptionError.authenticationFailed) { try decrypt(edited { $0[index] ^= 0x40 }) }
        }
        #expect(throws: WebPushEncryptionError.authenticationFailed) { try decrypt(body, key: try P256KeyPair.generate()) }
        #expect(throws: WebPushEncryptionError.authenticationFailed) { try decrypt(body, secret: [UInt8](repeating: 0, count: 16)) }
        #expect(throws: WebPushEncryptionError.authSecretLength(0)) { try decrypt(body, secret: []) }
    }

    /// Records that authenticate but are not a last record: padding with
    /// the 0x01 delimiter (more records follow), or all zeros.
    @Test func refusesRecordsWithoutTheLastRecordDelimiter() throws {
        let body = Base64.decode(RFC8291Example.body)!
        let keys = try Self.contentKeys(body: body, userAgentKey: Self.browser)
        for padded in [Self.plaintext + [1], Self.plaintext + [1, 0, 0], [0, 0, 0], []] {
            let sealed = try AES128GCM.seal(padded, key: keys.cek, nonce: keys.nonce, authenticatedData: [])
            let forged = Array(body.prefix(86)) + sealed.ciphertext + sealed.tag
            #expect(
                throws: WebPushEncryptionError.malformedBody(padded.isEmpty ? "record shorter than its tag" : "no last-record delimiter")
            ) {
                try WebPushEncryption.decrypt(body: forged, userAgentKey: Self.browser, authSecret: Self.authSecret)
            }
        }
        // Padding zeros after the delimiter are allowed and removed.
        let sealed = try AES128GCM.seal(Self.plaintext + [2, 0, 0, 0], key: keys.cek, nonce: keys.nonce, authenticatedData: [])
        let padded = Array(body.prefix(86)) + sealed.ciphertext + sealed.tag
        #expect(try WebPushEncryption.decrypt(body: padded, userAgentKey: Self.browser, authSecret: Self.authSecret) == Self.plaintext)
    }

    /// A browser's decryption in another implementation: Python's
    /// cryptography package (ECDH, HKDF, AES-GCM) reads a fresh body.
    @Test(.enabled(if: TestPython.isAvailable, "needs TIDINGS_TEST_PUSH_PYTHON (scripts/run-tests.sh)"))
    func pythonDecryptsAFreshBody() throws {
        let browser = try P256KeyPair.generate()
        let secret = SecureRandom.bytes(count: 16)
        let message = Array(#"{"badge":3,"title":"Tidings ✓"}"#.utf8)
        let body = try WebPushEncryption.encrypt(plaintext: message, userAgentPublicKey: browser.publicKeyBytes, authSecret: secret)
        let script = """
            import base64, sys
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            from cryptography.hazmat.primitives.kdf.hkdf import HKDF
            d = lambda s: base64.urlsafe_b64decode(s + '=' * (-len(s) % 4))
            body, key, auth = d(sys.argv[1]), serialization.load_pem_private_key(sys.argv[2].encode(), None), d(sys.argv[3])
            salt, rs, idlen = body[:16], int.from_bytes(body[16:20], 'big'), body[20]
            sender = body[21:21 + idlen]
            ua = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            secret = key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
            hkdf = lambda salt, ikm, info, n: HKDF(hashes.SHA256(), n, salt, info).derive(ikm)
            ikm = hkdf(auth, secret, b'WebPush: info\\0' + ua + sender, 32)
            cek = hkdf(salt, ikm, b'Content-Encoding: aes128gcm\\0', 16)
            nonce = hkdf(salt, ikm, b'Content-Encoding: nonce\\0', 12)
            padded = AESGCM(cek).decrypt(nonce, body[21 + idlen:], None).rstrip(b'\\0')
            assert rs == 4096 and padded[-1] == 2
            sys.stdout.write(base64.urlsafe_b64encode(padded[:-1]).decode())
            """
        let output = try TestPython.run(
            script, arguments: [Base64.encodeURLSafe(body), try browser.pkcs8PEM(), Base64.encodeURLSafe(secret)])
        #expect(output.flatMap(Base64.decode) == message)
    }

    /// RFC 8291 3.4 written out with HMAC, from the receiving side.
    private static func contentKeys(
        body: [UInt8], userAgentKey: P256KeyPair
    ) throws -> (prkKey: [UInt8], ikm: [UInt8], prk: [UInt8], cek: [UInt8], nonce: [UInt8]) {
        let salt = Array(body[0..<16])
        let sender = Array(body[21..<86])
        let secret = try userAgentKey.sharedSecret(with: P256PublicKey(bytes: sender))
        func hmac(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] { HMACSHA256.authenticationCode(for: message, key: key).bytes }
        let prkKey = hmac(authSecret, secret)
        let ikm = hmac(prkKey, Array("WebPush: info".utf8) + [0] + userAgentKey.publicKeyBytes + sender + [1])
        let prk = hmac(salt, ikm)
        let cek = Array(hmac(prk, Array("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16))
        let nonce = Array(hmac(prk, Array("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12))
        return (prkKey, ikm, prk, cek, nonce)
    }
}
