internal import CCrypto
package import FoundationEssentials

/// SHA-256 (FIPS 180-4) on OpenSSL's EVP interface.
package struct SHA256: ~Copyable {
    package static let byteCount = 32

    private let context: OpaquePointer

    package init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("OpenSSL could not initialise SHA-256: \(OpenSSLErrorQueue.drain())")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    package mutating func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        bytes.withUnsafeBytes { buffer in
            precondition(EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1)
        }
    }

    package consuming func finalize() -> Digest {
        var output = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &output, &length) == 1 && length == 32)
        return Digest(bytes: output)
    }

    /// The digest of `bytes` in one call.
    package static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> Digest {
        var output = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        bytes.withUnsafeBytes { buffer in
            precondition(EVP_Digest(buffer.baseAddress, buffer.count, &output, &length, EVP_sha256(), nil) == 1)
        }
        return Digest(bytes: output)
    }

    package static func hash(_ string: String) -> Digest {
        hash(Array(string.utf8))
    }
}
