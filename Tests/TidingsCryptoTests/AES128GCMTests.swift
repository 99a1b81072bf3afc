import Testing
import TidingsCrypto

@Suite struct AES128GCMTests {
    // The GCM specification's test case 4 (AES-128, 60-byte plaintext, 20
    // bytes of additional data), also checked against Python's
    // cryptography package.
    static let key = Hex.decode("feffe9928665731c6d6a8f9467308308")!
    static let nonce = Hex.decode("cafebabefacedbaddecaf888")!
    static let additionalData = Hex.decode("feedfacedeadbeeffeedfacedeadbeefabaddad2")!
    static let plaintext = Hex.decode(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")!
    static let ciphertext =
        "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
    static let tag = "5bc94fbc3221a5db94fae95ae7121a47"

    @Test func knownAnswer() throws {
        let sealed = try AES128GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        #expect(Hex.encode(sealed.ciphertext) == Self.ciphertext)
        #expect(Hex.encode(sealed.tag) == Self.tag)
        let opened = try AES128GCM.open(
            sealed.ciphertext, tag: sealed.tag, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        #expect(opened == Self.plaintext)
    }

    /// The two key sizes share one implementation; each must use its own
    /// cipher, so the same bytes never agree between them.
    @Test func differsFromAES256WithTheKeyRepeated() throws {
        let sealed128 = try AES128GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticatedData: [])
        let sealed256 = try AES256GCM.seal(Self.plaintext, key: Self.key + Self.key, nonce: Self.nonce, authenticatedData: [])
        #expect(sealed128.ciphertext != sealed256.ciphertext && sealed128.tag != sealed256.tag)
        #expect(throws: SecretError.authenticationFailed) {
            try AES256GCM.open(sealed128.ciphertext, tag: sealed128.tag, key: Self.key + Self.key, nonce: Self.nonce, authenticatedData: [])
        }
    }

    @Test func roundTripsEmptyAndLongInputs() throws {
        for plaintext in [[UInt8](), [0x02], [UInt8](repeating: 0x7f, count: 100_000)] {
            let sealed = try AES128GCM.seal(plaintext, key: Self.key, nonce: Self.nonce, authenticatedData: [])
            #expect(sealed.ciphertext.count == plaintext.count && sealed.tag.count == 16)
            #expect(
                try AES128GCM.open(sealed.ciphertext, tag: sealed.tag, key: Self.key, nonce: Self.nonce, authenticatedData: []) == plaintext
            )
        }
    }

    @Test func anyChangeFailsAuthentication() throws {
        let sealed = try AES128GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        var ciphertext = sealed.ciphertext
        ciphertext[30] ^= 0x01
        var tag = sealed.tag
        tag[0] ^= 0x80
        var key = Self.key
        key[15] ^= 0x01
        #expect(throws: SecretError.authenticationFailed) {
            try AES128GCM.open(ciphertext, tag: sealed.tag, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES128GCM.open(sealed.ciphertext, tag: tag, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES128GCM.open(sealed.ciphertext, tag: sealed.tag, key: key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES128GCM.open(sealed.ciphertext, tag: sealed.tag, key: Self.key, nonce: Self.nonce, authenticatedData: [])
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES128GCM.open(sealed.ciphertext, tag: [], key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        }
    }
}
