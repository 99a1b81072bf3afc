import Testing
import TidingsCrypto

@Suite struct SHA256Tests {
    // FIPS 180-2, appendix B.
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func publishedVectors(input: String, expected: String) {
        #expect(SHA256.hash(input).hex == expected)
    }

    @Test func millionAsMatchesFIPSVectorIncrementally() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hasher.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func incrementalEqualsOneShot() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA256()
        hasher.update(Array(bytes[..<3333]))
        hasher.update(Array(bytes[3333...]))
        #expect(hasher.finalize() == SHA256.hash(bytes))
    }
}
