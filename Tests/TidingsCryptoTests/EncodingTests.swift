import Testing
import TidingsCrypto

@Suite struct EncodingTests {
    // RFC 4648, section 10.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func base64Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func base64URLSafeAlphabetAndInvalidInput() {
        #expect(Base64.encodeURLSafe([0xfb, 0xff]) == "-_8")
        #expect(Base64.decode("-_8") == [0xfb, 0xff])
        #expect(Base64.decode("a") == nil)
        #expect(Base64.decode("ab=c") == nil)
        #expect(Base64.decode("a b") == nil)
    }

    @Test func hexRoundTrip() {
        #expect(Hex.encode([0x00, 0xab, 0xff]) == "00abff")
        #expect(Hex.decode("00ABff") == [0x00, 0xab, 0xff])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }

    @Test func randomTokensAreDistinctAndSized() {
        let tokens = Set((0..<100).map { _ in SecureRandom.token(byteCount: 32) })
        #expect(tokens.count == 100)
        #expect(tokens.allSatisfy { $0.count == 43 && !$0.contains("=") })
        #expect(SecureRandom.bytes(count: 0).isEmpty)
    }
}
