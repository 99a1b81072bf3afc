/// The keys that seal and open stored secrets: the current key seals, and
/// it or any previous key (`TIDINGS_PREVIOUS_SECRET_KEYS`, kept during a
/// rotation) opens.
///
/// A sealed value is text, so it fits the existing `text` and `jsonb`
/// columns:
///
///     enc:v1:<key id>:<base64 of nonce (12) | ciphertext | tag (16)>
///
/// with a fresh random 96-bit nonce per value (AES-256-GCM). The caller's
/// `context` (what the value is: `webhooks.secret`, a header's name) is
/// authenticated with the value, so a sealed value copied into another
/// column or under another header name does not open.
package struct SecretKeyring: Sendable {
    package static let prefix = "enc:"
    package static let version = "v1"

    package let current: SecretKey
    package let previous: [SecretKey]
    private let byID: [String: SecretKey]

    /// `previous` keys equal to `current` (or to each other) are dropped.
    package init(current: SecretKey, previous: [SecretKey] = []) {
        self.current = current
        var byID = [current.id: current]
        var kept: [SecretKey] = []
        for key in previous where byID[key.id] == nil {
            byID[key.id] = key
            kept.append(key)
        }
        self.previous = kept
        self.byID = byID
    }

    /// The start every value sealed under the current key has.
    package var currentPrefix: String {
        "\(Self.prefix)\(Self.version):\(current.id):"
    }

    /// Whether `stored` looks sealed at all (any version, any key).
    package static func isSealed(_ stored: String) -> Bool {
        stored.hasPrefix(prefix)
    }

    /// Whether `stored` is sealed under the current key, so a rotation
    /// need not touch it.
    package func isSealedUnderCurrentKey(_ stored: String) -> Bool {
        stored.hasPrefix(currentPrefix)
    }

    package func seal(_ plaintext: String, context: String) throws(SecretError) -> String {
        let nonce = SecureRandom.bytes(count: AES256GCM.nonceByteCount)
        let (ciphertext, tag) = try AES256GCM.seal(
            Array(plaintext.utf8), key: current.bytes, nonce: nonce,
            authenticatedData: Self.authenticatedData(context: context)
        )
        return currentPrefix + Base64.encode(nonce + ciphertext + tag)
    }

    package func open(_ stored: String, context: String) throws(SecretError) -> String {
        guard stored.hasPrefix(Self.prefix) else { throw .malformed }
        let parts = stored.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4 else { throw .malformed }
        guard parts[1] == Self.version else { throw .unsupportedVersion(String(parts[1].prefix(16))) }
        let keyID = String(parts[2])
        guard keyID.utf8.count == SecretKey.idLength, Hex.decode(keyID) != nil else { throw .malformed }
        guard let key = byID[keyID] else { throw .unknownKey(id: keyID) }
        guard let payload = Base64.decode(String(parts[3])),
            payload.count >= AES256GCM.nonceByteCount + AES256GCM.tagByteCount
        else { throw .malformed }
        let nonce = Array(payload.prefix(AES256GCM.nonceByteCount))
        let tag = Array(payload.suffix(AES256GCM.tagByteCount))
        let ciphertext = Array(payload[AES256GCM.nonceByteCount..<(payload.count - AES256GCM.tagByteCount)])
        let plaintext = try AES256GCM.open(
            ciphertext, tag: tag, key: key.bytes, nonce: nonce,
            authenticatedData: Self.authenticatedData(context: context)
        )
        // Sealed values are always text; invalid UTF-8 here is corruption
        // the tag could not see (it cannot happen short of a forged key).
        guard let text = String(validating: plaintext, as: UTF8.self) else { throw .notText }
        return text
    }

    private static func authenticatedData(context: String) -> [UInt8] {
        Array("\(prefix)\(version):\(context)".utf8)
    }
}
