import Testing
import TidingsCrypto

@Suite struct SecretKeyTests {
    static let hex = "6f1c0a3e9b7d24c85e0f3a61d29b7c4e8a15f0362dc9e7b4a0581f3d6c2e9b70"

    @Test func parsesSixtyFourHexCharacters() throws {
        let key = try SecretKey(hex: Self.hex)
        #expect(key.hex == Self.hex)
        // The id is the first 8 hex characters of the SHA-256 of the key bytes.
        #expect(key.id == String(SHA256.hash(Hex.decode(Self.hex)!).hex.prefix(8)))
        #expect(try SecretKey(hex: Self.hex.uppercased()).id == key.id)
        #expect(try SecretKey(hex: "  \(Self.hex)\n").id == key.id, "white space from a file or shell is ignored")
        #expect(!"\(key)".contains(Self.hex) && "\(key)".contains(key.id), "printing a key shows its id, never the key")
    }

    @Test func refusesBadValues() {
        #expect(throws: SecretKeyError.wrongLength(characters: 62)) { try SecretKey(hex: String(Self.hex.dropLast(2))) }
        #expect(throws: SecretKeyError.wrongLength(characters: 66)) { try SecretKey(hex: Self.hex + "00") }
        #expect(throws: SecretKeyError.wrongLength(characters: 0)) { try SecretKey(hex: "") }
        // Base64 of 32 bytes is the classic mistake: 44 characters.
        #expect(throws: SecretKeyError.wrongLength(characters: 44)) { try SecretKey(hex: "b3BlbnNzbCByYW5kIC1iYXNlNjQgMzIgaXMgd3Jvbmc=") }
        #expect(throws: SecretKeyError.notHex) { try SecretKey(hex: "g" + Self.hex.dropFirst()) }
        #expect(throws: SecretKeyError.notHex) { _ = try SecretKey(hex: String(Self.hex.dropLast(2)) + "é") }
        #expect(throws: SecretKeyError.allZero) { try SecretKey(hex: String(repeating: "0", count: 64)) }
        let message = "\(SecretKeyError.notHex) \(SecretKeyError.wrongLength(characters: 3))"
        #expect(message.contains("openssl rand -hex 32"))
    }

    @Test func generatedKeysDiffer() {
        let first = SecretKey.generate()
        let second = SecretKey.generate()
        #expect(first.hex.count == 64 && first != second && first.id != second.id)
    }
}
