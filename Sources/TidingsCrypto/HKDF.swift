/// HKDF with SHA-256 (RFC 5869), on the one HMAC (`HMACSHA256`): what Web
/// Push (RFC 8291) derives its keys with. Both steps are a few HMACs over
/// short inputs, so no OpenSSL KDF context is worth setting up.
package enum HKDFSHA256 {
    /// The most `expand` gives: 255 blocks of the hash (RFC 5869 2.3).
    package static let maximumOutputByteCount = 255 * SHA256.byteCount

    /// HKDF-Extract: a pseudorandom key from input keying material, keyed
    /// by the salt (an empty salt stands for 32 zero bytes, as HMAC pads
    /// any shorter key with zeros).
    package static func extract(salt: [UInt8], inputKeyingMaterial: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(for: inputKeyingMaterial, key: salt).bytes
    }

    /// HKDF-Expand: `outputByteCount` bytes of T(1) || T(2) || ..., where
    /// T(i) = HMAC(PRK, T(i-1) || info || i). Asking for more than
    /// `maximumOutputByteCount` is a programming error.
    package static func expand(pseudorandomKey: [UInt8], info: [UInt8], outputByteCount: Int) -> [UInt8] {
        precondition((0...maximumOutputByteCount).contains(outputByteCount), "HKDF-SHA-256 gives 0 to 8160 bytes")
        var output: [UInt8] = []
        output.reserveCapacity(outputByteCount + SHA256.byteCount)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < outputByteCount {
            block = HMACSHA256.authenticationCode(for: block + info + [counter], key: pseudorandomKey).bytes
            output += block
            counter &+= 1
        }
        return Array(output.prefix(outputByteCount))
    }
}
