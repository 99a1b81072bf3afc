/// Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
/// keyed with the bytes of a `whsec_` secret.
package struct WebhookSecret: Sendable, Equatable {
    package static let prefix = "whsec_"

    package let key: [UInt8]

    package init(key: [UInt8]) {
        self.key = key
    }

    /// Parses `whsec_<base64>`; nil when the prefix or the encoding is wrong.
    package init?(encoded: String) {
        guard encoded.hasPrefix(Self.prefix),
            let key = Base64.decode(String(encoded.dropFirst(Self.prefix.count))),
            !key.isEmpty
        else { return nil }
        self.key = key
    }

    /// A new secret of 32 random bytes.
    package static func generate() -> WebhookSecret {
        WebhookSecret(key: SecureRandom.bytes(count: 32))
    }

    package var encoded: String {
        Self.prefix + Base64.encode(key)
    }

    package func signature(messageID: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(messageID).\(timestamp).".utf8)
        message.append(contentsOf: body)
        return "v1," + HMACSHA256.authenticationCode(for: message, key: key).base64
    }
}
