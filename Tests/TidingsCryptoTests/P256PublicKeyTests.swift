import Testing
import TidingsCrypto

@Suite struct P256PublicKeyTests {
    static let point = Base64.decode(RFC8291Example.userAgentPublicKey)!
    /// P-256's field prime p, big-endian: no coordinate may reach it.
    static let prime = Hex.decode("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")!

    @Test func readsTheUncompressedPoint() throws {
        let key = try P256PublicKey(bytes: Self.point)
        #expect(key.bytes == Self.point)
        #expect(key.base64URL == RFC8291Example.userAgentPublicKey)
        #expect(try P256PublicKey(base64URL: RFC8291Example.userAgentPublicKey) == key)
        #expect(try P256PublicKey(base64URL: RFC8291Example.applicationServerPublicKey) != key)
        // Padded, as some clients send it.
        #expect(try P256PublicKey(base64URL: RFC8291Example.userAgentPublicKey + "=") == key)
    }

    @Test func refusesPointsOffTheCurve() {
        var flipped = Self.point
        flipped[64] ^= 0x01
        var swapped = Self.point
        swapped.replaceSubrange(1..<33, with: Self.point[33..<65])
        swapped.replaceSubrange(33..<65, with: Self.point[1..<33])
        let zero = [0x04] + [UInt8](repeating: 0, count: 64)
        // x = p: the same residue as 0, but not a canonical coordinate.
        let xIsPrime = [0x04] + Self.prime + Array(Self.point[33..<65])
        let allOnes = [0x04] + [UInt8](repeating: 0xff, count: 64)
        for bytes in [flipped, swapped, zero, xIsPrime, allOnes] {
            #expect(throws: P256KeyError.notOnCurve) { try P256PublicKey(bytes: bytes) }
        }
    }

    @Test func refusesOtherLengthsAndForms() {
        // The compressed form of the same point (0x02 or 0x03 || X).
        let compressed = [0x02 | (Self.point[64] & 1)] + Array(Self.point[1..<33])
        #expect(throws: P256KeyError.wrongLength(expected: 65, actual: 33)) { try P256PublicKey(bytes: compressed) }
        #expect(throws: P256KeyError.wrongLength(expected: 65, actual: 0)) { try P256PublicKey(bytes: []) }
        #expect(throws: P256KeyError.wrongLength(expected: 65, actual: 64)) { try P256PublicKey(bytes: Array(Self.point.dropFirst())) }
        #expect(throws: P256KeyError.wrongLength(expected: 65, actual: 66)) { try P256PublicKey(bytes: Self.point + [0]) }
        #expect(throws: P256KeyError.wrongLength(expected: 65, actual: 100_000)) {
            try P256PublicKey(bytes: [UInt8](repeating: 4, count: 100_000))
        }
        // Hybrid (0x06, 0x07) and other leading bytes.
        for first: UInt8 in [0x00, 0x02, 0x03, 0x06, 0x07, 0xff] {
            var bytes = Self.point
            bytes[0] = first
            #expect(throws: P256KeyError.notUncompressedPoint) { try P256PublicKey(bytes: bytes) }
        }
    }

    @Test func refusesMalformedBase64URL() {
        for text in ["a", "BCVxsr7N_eNgVRqvHtD0 zTZsEc6", "BCVxsr7N*eNgVRqvHtD0zTZsEc6", "=BCV"] {
            #expect(throws: P256KeyError.notBase64URL) { try P256PublicKey(base64URL: text) }
        }
        #expect(throws: P256KeyError.wrongLength(expected: 65, actual: 0)) { try P256PublicKey(base64URL: "") }
        #expect(throws: P256KeyError.wrongLength(expected: 65, actual: 16)) { try P256PublicKey(base64URL: RFC8291Example.authSecret) }
        #expect(throws: P256KeyError.tooLarge(maximum: 65)) {
            try P256PublicKey(base64URL: String(repeating: "A", count: 1_000_000))
        }
    }

    /// Each reason reads as the end of a sentence about the key, and none
    /// repeats the input.
    @Test func reasonsNeverRepeatTheKey() {
        let errors: [P256KeyError] = [.notOnCurve, .notUncompressedPoint, .wrongLength(expected: 65, actual: 3), .notBase64URL]
        for error in errors {
            #expect(!"\(error)".isEmpty && !"\(error)".contains(RFC8291Example.userAgentPublicKey.prefix(8)))
        }
    }
}
