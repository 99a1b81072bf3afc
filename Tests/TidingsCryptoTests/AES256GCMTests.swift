import Testing
import TidingsCrypto

@Suite struct AES256GCMTests {
    // The GCM specification's test case 16 (AES-256, 60-byte plaintext,
    // 20 bytes of additional data), also checked against Python's
    // cryptography package.
    static let key = Hex.decode("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")!
    static let nonce = Hex.decode("cafebabefacedbaddecaf888")!
    static let additionalData = Hex.decode("feedfacedeadbeeffeedfacedeadbeefabaddad2")!
    static let plaintext = Hex.decode(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")!
    static let ciphertext =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
    static let tag = "76fc6ece0f4e1768cddf8853bb2d551b"

    @Test func knownAnswer() throws {
        let sealed = try AES256GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        #expect(Hex.encode(sealed.ciphertext) == Self.ciphertext)
        #expect(Hex.encode(sealed.tag) == Self.tag)
        let opened = try AES256GCM.open(
            sealed.ciphertext, tag: sealed.tag, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        #expect(opened == Self.plaintext)
    }

    @Test func roundTripsEmptyAndLongInputs() throws {
        for plaintext in [[UInt8](), [0x41], [UInt8](repeating: 0x7f, count: 100_000)] {
            let sealed = try AES256GCM.seal(plaintext, key: Self.key, nonce: Self.nonce, authenticatedData: [])
            #expect(sealed.ciphertext.count == plaintext.count && sealed.tag.count == 16)
            #expect(
                try AES256GCM.open(sealed.ciphertext, tag: sealed.tag, key: Self.key, nonce: Self.nonce, authenticatedData: []) == plaintext
            )
        }
    }

    /// One flipped bit anywhere (ciphertext, tag, nonce, additional data)
    /// or another key: the tag does not verify.
    @Test func anyChangeFailsAuthentication() throws {
        let sealed = try AES256GCM.seal(Self.plaintext, key: Self.key, nonce: Self.nonce, authenticatedData: Self.additionalData)
        func flipped(_ bytes: [UInt8], at index: Int, bit: UInt8 = 0x01) -> [UInt8] {
            var copy = bytes
            copy[index] ^= bit
            return copy
        }
        for index in [0, 17, sealed.ciphertext.count - 1] {
            #expect(throws: SecretError.authenticationFailed) {
                try AES256GCM.open(
                    flipped(sealed.ciphertext, at: index), tag: sealed.tag, key: Self.key,
                    nonce: Self.nonce, authenticatedData: Self.additionalData)
            }
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES256GCM.open(
                sealed.ciphertext, tag: flipped(sealed.tag, at: 15, bit: 0x80), key: Self.key,
                nonce: Self.nonce, authenticatedData: Self.additionalData)
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES256GCM.open(
                sealed.ciphertext, tag: sealed.tag, key: Self.key,
                nonce: flipped(Self.nonce, at: 0), authenticatedData: Self.additionalData)
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES256GCM.open(
                sealed.ciphertext, tag: sealed.tag, key: Self.key,
                nonce: Self.nonce, authenticatedData: flipped(Self.additionalData, at: 3, bit: 0x04))
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES256GCM.open(
                sealed.ciphertext, tag: sealed.tag, key: flipped(Self.key, at: 31),
                nonce: Self.nonce, authenticatedData: Self.additionalData)
        }
        #expect(throws: SecretError.authenticationFailed) {
            try AES256GCM.open(
                sealed.ciphertext, tag: Array(sealed.tag.prefix(12)), key: Self.key,
                nonce: Self.nonce, authenticatedData: Self.additionalData)
        }
    }
}
