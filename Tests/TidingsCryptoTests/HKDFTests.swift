import Testing
import TidingsCrypto

@Suite struct HKDFTests {
    // RFC 5869, appendix A.1 (test case 1): 42 bytes, so expand needs a
    // second block.
    @Test func rfc5869TestCase1() {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let salt = Hex.decode("000102030405060708090a0b0c")!
        let info = Hex.decode("f0f1f2f3f4f5f6f7f8f9")!
        let prk = HKDFSHA256.extract(salt: salt, inputKeyingMaterial: ikm)
        #expect(Hex.encode(prk) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let okm = HKDFSHA256.expand(pseudorandomKey: prk, info: info, outputByteCount: 42)
        #expect(Hex.encode(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    // RFC 5869, appendix A.3 (test case 3): empty salt and info.
    @Test func rfc5869TestCase3() {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let prk = HKDFSHA256.extract(salt: [], inputKeyingMaterial: ikm)
        #expect(Hex.encode(prk) == "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04")
        let okm = HKDFSHA256.expand(pseudorandomKey: prk, info: [], outputByteCount: 42)
        #expect(Hex.encode(okm) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    /// A shorter output is a prefix of a longer one (the blocks do not
    /// depend on the length asked for), and zero bytes is empty.
    @Test func outputsArePrefixesOfEachOther() {
        let prk = HKDFSHA256.extract(salt: [1, 2, 3], inputKeyingMaterial: [4, 5, 6])
        let long = HKDFSHA256.expand(pseudorandomKey: prk, info: [7], outputByteCount: 100)
        #expect(long.count == 100)
        for count in [0, 1, 12, 16, 32, 33, 64] {
            #expect(HKDFSHA256.expand(pseudorandomKey: prk, info: [7], outputByteCount: count) == Array(long.prefix(count)))
        }
        #expect(HKDFSHA256.expand(pseudorandomKey: prk, info: [8], outputByteCount: 16) != Array(long.prefix(16)))
        #expect(HKDFSHA256.expand(pseudorandomKey: prk, info: [7], outputByteCount: HKDFSHA256.maximumOutputByteCount).count == 8160)
    }
}
