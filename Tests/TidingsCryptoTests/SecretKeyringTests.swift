import Foundation
import Testing
import TidingsCrypto

@Suite struct SecretKeyringTests {
    static let keyA = try! SecretKey(hex: "6f1c0a3e9b7d24c85e0f3a61d29b7c4e8a15f0362dc9e7b4a0581f3d6c2e9b70")
    static let keyB = try! SecretKey(hex: "d83a5e1f07c49b26e3f18a5d0c7b92e4f6a3081d5c9e2b7f41a06d3e8c5b1f29")

    @Test func roundTrip() throws {
        let keyring = SecretKeyring(current: Self.keyA)
        for secret in ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "Bearer 🔑 token", "x", ""] {
            let sealed = try keyring.seal(secret, context: "test")
            #expect(sealed.hasPrefix("enc:v1:\(Self.keyA.id):"))
            #expect(secret.count < 4 || !sealed.contains(secret))
            #expect(keyring.isSealedUnderCurrentKey(sealed) && SecretKeyring.isSealed(sealed))
            #expect(try keyring.open(sealed, context: "test") == secret)
        }
    }

    @Test func eachValueHasItsOwnNonce() throws {
        let keyring = SecretKeyring(current: Self.keyA)
        let values = try (0..<100).map { _ in try keyring.seal("same secret", context: "test") }
        #expect(Set(values).count == 100)
        // 12 nonce + 11 ciphertext + 16 tag bytes.
        let payload = try #require(Base64.decode(String(values[0].split(separator: ":")[3])))
        #expect(payload.count == 12 + 11 + 16)
    }

    @Test func aFlippedBitIsDetected() throws {
        let keyring = SecretKeyring(current: Self.keyA)
        let sealed = try keyring.seal("Bearer secret-token", context: "test")
        let parts = sealed.split(separator: ":").map(String.init)
        let payload = try #require(Base64.decode(parts[3]))
        for index in [0, 11, 12, 20, payload.count - 1] { // nonce, ciphertext, tag
            var tampered = payload
            tampered[index] ^= 0x10
            let text = "enc:v1:\(parts[2]):\(Base64.encode(tampered))"
            #expect(throws: SecretError.authenticationFailed) { try keyring.open(text, context: "test") }
        }
    }

    @Test func wrongKeyOrContextFails() throws {
        let sealed = try SecretKeyring(current: Self.keyA).seal("Bearer secret-token", context: "targets.headers.authorization")
        // A keyring without key A does not know the id ...
        #expect(throws: SecretError.unknownKey(id: Self.keyA.id)) {
            try SecretKeyring(current: Self.keyB).open(sealed, context: "targets.headers.authorization")
        }
        // ... and a value relabelled with key B's id fails authentication.
        let relabelled = sealed.replacingOccurrences(of: Self.keyA.id, with: Self.keyB.id)
        #expect(throws: SecretError.authenticationFailed) {
            try SecretKeyring(current: Self.keyB).open(relabelled, context: "targets.headers.authorization")
        }
        // The context is authenticated: another header's or column's value does not open.
        #expect(throws: SecretError.authenticationFailed) {
            try SecretKeyring(current: Self.keyA).open(sealed, context: "targets.headers.x-api-key")
        }
    }

    @Test func previousKeysOpenButNeverSeal() throws {
        let old = try SecretKeyring(current: Self.keyA).seal("old secret", context: "test")
        let rotating = SecretKeyring(current: Self.keyB, previous: [Self.keyA, Self.keyB])
        #expect(rotating.previous.map(\.id) == [Self.keyA.id], "the current key is not repeated among the previous ones")
        #expect(try rotating.open(old, context: "test") == "old secret")
        #expect(!rotating.isSealedUnderCurrentKey(old))
        let new = try rotating.seal("new secret", context: "test")
        #expect(new.hasPrefix(rotating.currentPrefix) && new.hasPrefix("enc:v1:\(Self.keyB.id):"))
        #expect(throws: SecretError.unknownKey(id: Self.keyB.id)) { try SecretKeyring(current: Self.keyA).open(new, context: "test") }
    }

    @Test func malformedValues() {
        let keyring = SecretKeyring(current: Self.keyA)
        for text in [
            "whsec_abc", "enc:v1", "enc:v1:\(Self.keyA.id)", "enc:v1:zzzzzzzz:AAAA", "enc:v1:\(Self.keyA.id):***",
            "enc:v1:\(Self.keyA.id):\(Base64.encode([UInt8](repeating: 1, count: 27)))",
        ] {
            #expect(throws: SecretError.malformed) { try keyring.open(text, context: "test") }
        }
        #expect(throws: SecretError.unsupportedVersion("v9")) { try keyring.open("enc:v9:\(Self.keyA.id):AAAA", context: "test") }
    }
}
