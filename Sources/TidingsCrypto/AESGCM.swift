internal import CCrypto

/// AES-GCM (NIST SP 800-38D) on OpenSSL's EVP interface, for the key sizes
/// Tidings uses: one implementation behind `AES128GCM` (Web Push) and
/// `AES256GCM` (stored secrets). 96-bit nonce, 128-bit tag. Every OpenSSL
/// return code is checked; a failure to encrypt is `SecretError.openSSL`, a
/// failure to authenticate on the way back is
/// `SecretError.authenticationFailed`.
enum AESGCM {
    enum KeySize {
        case bits128
        case bits256

        var byteCount: Int {
            switch self {
            case .bits128: 16
            case .bits256: 32
            }
        }

        fileprivate var cipher: OpaquePointer? {
            switch self {
            case .bits128: EVP_aes_128_gcm()
            case .bits256: EVP_aes_256_gcm()
            }
        }
    }

    static let nonceByteCount = 12
    static let tagByteCount = 16

    // OpenSSL 3's AEAD control codes (evp.h); the GCM-named macros are
    // aliases of these.
    private static let getTag: Int32 = 0x10
    private static let setTag: Int32 = 0x11

    static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticatedData: [UInt8], keySize: KeySize
    ) throws(SecretError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        precondition(
            key.count == keySize.byteCount && nonce.count == nonceByteCount,
            "AES-GCM needs a \(keySize.byteCount)-byte key and a 12-byte nonce")
        guard let plaintextLength = Int32(exactly: plaintext.count), Int32(exactly: authenticatedData.count) != nil else {
            throw .tooLong
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        defer { EVP_CIPHER_CTX_free(context) }
        // Room for one block more than the input, whatever the mode does.
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        var written: Int32 = 0
        var total = 0
        // The default IV length of GCM in OpenSSL is 12 bytes, the size used here.
        guard EVP_EncryptInit_ex(context, keySize.cipher, nil, key, nonce) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        if !authenticatedData.isEmpty {
            // A nil output pointer marks the input as additional data.
            guard EVP_EncryptUpdate(context, nil, &written, authenticatedData, Int32(authenticatedData.count)) == 1 else {
                throw .openSSL(OpenSSLErrorQueue.drain())
            }
        }
        if !plaintext.isEmpty {
            let result = ciphertext.withUnsafeMutableBufferPointer { output in
                EVP_EncryptUpdate(context, output.baseAddress, &written, plaintext, plaintextLength)
            }
            guard result == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
            total = Int(written)
        }
        let final = ciphertext.withUnsafeMutableBufferPointer { output in
            EVP_EncryptFinal_ex(context, output.baseAddress! + total, &written)
        }
        guard final == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        total += Int(written)
        guard EVP_CIPHER_CTX_ctrl(context, getTag, Int32(tagByteCount), &tag) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        return (Array(ciphertext.prefix(total)), tag)
    }

    static func open(
        _ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8], authenticatedData: [UInt8], keySize: KeySize
    ) throws(SecretError) -> [UInt8] {
        precondition(
            key.count == keySize.byteCount && nonce.count == nonceByteCount,
            "AES-GCM needs a \(keySize.byteCount)-byte key and a 12-byte nonce")
        guard tag.count == tagByteCount else { throw .authenticationFailed }
        guard let ciphertextLength = Int32(exactly: ciphertext.count), Int32(exactly: authenticatedData.count) != nil else {
            throw .tooLong
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        defer { EVP_CIPHER_CTX_free(context) }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        var total = 0
        guard EVP_DecryptInit_ex(context, keySize.cipher, nil, key, nonce) == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
        if !authenticatedData.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &written, authenticatedData, Int32(authenticatedData.count)) == 1 else {
                throw .openSSL(OpenSSLErrorQueue.drain())
            }
        }
        if !ciphertext.isEmpty {
            let result = plaintext.withUnsafeMutableBufferPointer { output in
                EVP_DecryptUpdate(context, output.baseAddress, &written, ciphertext, ciphertextLength)
            }
            guard result == 1 else { throw .openSSL(OpenSSLErrorQueue.drain()) }
            total = Int(written)
        }
        var expectedTag = tag
        guard EVP_CIPHER_CTX_ctrl(context, setTag, Int32(tagByteCount), &expectedTag) == 1 else {
            throw .openSSL(OpenSSLErrorQueue.drain())
        }
        let final = plaintext.withUnsafeMutableBufferPointer { output in
            EVP_DecryptFinal_ex(context, output.baseAddress! + total, &written)
        }
        guard final == 1 else {
            // A failed tag check queues no error of its own, but clear
            // whatever might be there so the next call starts clean.
            _ = OpenSSLErrorQueue.drain()
            throw .authenticationFailed
        }
        total += Int(written)
        return Array(plaintext.prefix(total))
    }
}
