package import FoundationEssentials

/// A 256-bit key for sealing stored secrets (`TIDINGS_SECRET_KEY`): 32
/// random bytes written as 64 hexadecimal characters, as
/// `openssl rand -hex 32` prints them.
///
/// Its `id` is the first 8 hex characters of the SHA-256 of the key bytes.
/// It is recorded with every value sealed under the key, so that a value
/// names the key that opens it and keys can rotate. 32 bits of a hash of a
/// 256-bit random key say nothing usable about the key.
package struct SecretKey: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    package static let byteCount = AES256GCM.keyByteCount
    package static let idLength = 8

    /// The key bytes; never printed (`description` shows the id only).
    let bytes: [UInt8]
    package let id: String

    package init(bytes: [UInt8]) throws(SecretKeyError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(characters: bytes.count * 2) }
        // An all-zero key is a placeholder someone forgot to replace.
        guard bytes.contains(where: { $0 != 0 }) else { throw .allZero }
        self.bytes = bytes
        self.id = String(SHA256.hash(bytes).hex.prefix(Self.idLength))
    }

    /// Parses 64 hex characters (either case; surrounding white space, as
    /// left by a file or a shell, is ignored).
    package init(hex text: String) throws(SecretKeyError) {
        let trimmed = text.trimmingHexWhitespace()
        guard trimmed.utf8.count == Self.byteCount * 2 else { throw .wrongLength(characters: trimmed.count) }
        guard let bytes = Hex.decode(trimmed) else { throw .notHex }
        try self.init(bytes: bytes)
    }

    /// A new random key from OpenSSL's DRBG.
    package static func generate() -> SecretKey {
        while true {
            if let key = try? SecretKey(bytes: SecureRandom.bytes(count: byteCount)) { return key }
        }
    }

    /// The key as 64 lower-case hex characters, for writing it to a file.
    package var hex: String {
        Hex.encode(bytes)
    }

    package var description: String {
        "SecretKey(id: \(id))"
    }

    /// `dump` and reflection see the id only, never the bytes.
    package var customMirror: Mirror {
        Mirror(self, children: ["id": id])
    }
}

/// Why a secret key is unusable; the messages never repeat the value.
package enum SecretKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongLength(characters: Int)
    case notHex
    case allZero

    package var description: String {
        switch self {
        case .wrongLength(let characters):
            "must be 64 hexadecimal characters (32 random bytes, e.g. from `openssl rand -hex 32`), not \(characters) characters"
        case .notHex:
            "must contain only hexadecimal characters (0-9, a-f), e.g. from `openssl rand -hex 32`"
        case .allZero:
            "must be random, not all zeros (use `openssl rand -hex 32`)"
        }
    }
}

extension String {
    fileprivate func trimmingHexWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
