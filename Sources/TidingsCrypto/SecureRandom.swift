internal import CCrypto

/// Cryptographically secure random bytes and tokens from OpenSSL's DRBG.
package enum SecureRandom {
    package static func bytes(count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        if count > 0 {
            precondition(RAND_bytes(&output, Int32(count)) == 1, "RAND_bytes failed: \(OpenSSLErrorQueue.drain())")
        }
        return output
    }

    /// A URL-safe token (base64url without padding) carrying `byteCount`
    /// random bytes, e.g. 32 bytes -> 43 characters.
    package static func token(byteCount: Int = 32) -> String {
        Base64.encodeURLSafe(bytes(count: byteCount))
    }
}
