/// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
public struct WebPushSubscription: Sendable, Hashable, Codable {
    /// The push service URL (https).
    public var endpoint: String
    /// The browser's P-256 public key, base64url.
    public var p256dh: String
    /// The subscription's 16-byte authentication secret, base64url.
    public var auth: String

    /// Creates a subscription from its three parts.
    public init(endpoint: String, p256dh: String, auth: String) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }

    private enum CodingKeys: String, CodingKey {
        case endpoint, keys
    }

    private enum KeyCodingKeys: String, CodingKey {
        case p256dh, auth
    }

    /// Decodes `{"endpoint": ..., "keys": {"p256dh": ..., "auth": ...}}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        endpoint = try container.decode(String.self, forKey: .endpoint)
        let keys = try container.nestedContainer(keyedBy: KeyCodingKeys.self, forKey: .keys)
        p256dh = try keys.decode(String.self, forKey: .p256dh)
        auth = try keys.decode(String.self, forKey: .auth)
    }

    /// Encodes the shape `PushSubscription.toJSON()` has.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(endpoint, forKey: .endpoint)
        var keys = container.nestedContainer(keyedBy: KeyCodingKeys.self, forKey: .keys)
        try keys.encode(p256dh, forKey: .p256dh)
        try keys.encode(auth, forKey: .auth)
    }
}
