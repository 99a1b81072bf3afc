internal import CCrypto
package import FoundationEssentials

/// HMAC-SHA256 (RFC 2104) on OpenSSL's one-shot HMAC function.
package enum HMACSHA256 {
    package static func authenticationCode<Key: ContiguousBytes, Message: ContiguousBytes>(
        for message: Message,
        key: Key
    ) -> Digest {
        var output = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBuffer in
            message.withUnsafeBytes { messageBuffer in
                // A zero-length buffer may have a nil base address; OpenSSL
                // needs a valid pointer even for empty input.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
                    let keyPointer = keyBuffer.baseAddress ?? UnsafeRawPointer(empty.baseAddress!)
                    let messagePointer = messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(empty.baseAddress!)
                    let result = HMAC(
                        EVP_sha256(), keyPointer, Int32(keyBuffer.count), messagePointer, messageBuffer.count, &output, &length)
                    precondition(result != nil && length == 32, "HMAC-SHA256 failed: \(OpenSSLErrorQueue.drain())")
                }
            }
        }
        return Digest(bytes: output)
    }
}
