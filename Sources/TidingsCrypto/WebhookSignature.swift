/// Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
/// keyed with the bytes of a `whsec_` secret.
public struct WebhookSecret: Sendable, Equatable {
    public static let prefix = "whsec_"

    public let key: [UInt8]

    public init(key: [UInt8]) {
        self.key = key
    }

    /// Parses `whsec_<base64>`; nil when the prefix or the encoding is wrong.
    public init?(encoded: String) {
        guard encoded.hasPrefix(Self.prefix),
              let key = Base64.decode(String(encoded.dropFirst(Self.prefix.count))),
              !key.isEmpty
        else { return nil }
        self.key = key
    }

    /// A new secret of 32 random bytes.
    public static func generate() -> WebhookSecret {
        WebhookSecret(key: SecureRandom.bytes(count: 32))
    }

    public var encoded: String {
        Self.prefix + Base64.encode(key)
    }

    public func signature(messageID: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(messageID).\(timestamp).".utf8)
        message.append(contentsOf: body)
        return "v1," + HMACSHA256.authenticationCode(for: message, key: key).base64
    }
}
