import TidingsCrypto

/// The format of API keys: `tdg_<12 hex prefix>_<43 base64url secret>`.
///
/// The prefix finds the stored row without a scan; the whole token's SHA-256
/// is what is stored and compared. A fast hash is right here (unlike for
/// passwords): the secret carries 256 random bits, so there is nothing to
/// brute-force.
enum APIKeyToken {
    static let scheme = "tdg_"

    struct Material {
        let token: String
        let prefix: String
        let hash: [UInt8]
    }

    static func generate() -> Material {
        let prefix = scheme + Hex.encode(SecureRandom.bytes(count: 6))
        let token = prefix + "_" + SecureRandom.token(byteCount: 32)
        return Material(token: token, prefix: prefix, hash: SHA256.hash(token).bytes)
    }

    /// The lookup prefix of a well-formed token, nil for anything else.
    static func prefix(of token: String) -> String? {
        let utf8 = token.utf8
        guard token.hasPrefix(scheme), utf8.count == scheme.utf8.count + 12 + 1 + 43 else { return nil }
        let prefix = String(token.prefix(scheme.count + 12))
        guard token.dropFirst(prefix.count).first == "_",
            Hex.decode(String(prefix.dropFirst(scheme.count))) != nil
        else { return nil }
        return prefix
    }

    static func hash(_ token: String) -> [UInt8] {
        SHA256.hash(token).bytes
    }
}
