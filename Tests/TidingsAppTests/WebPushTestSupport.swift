import TidingsCrypto

/// Browser-side keys for web device registrations in tests: a fresh P-256
/// key (p256dh) and a random 16-byte auth secret, as a browser makes them.
enum WebPushTestKeys {
    /// A `push_subscription` body for `endpoint`.
    static func subscription(endpoint: String) throws -> [String: Any] {
        let key = try P256KeyPair.generate()
        return [
            "endpoint": endpoint,
            "keys": ["p256dh": key.publicKeyBase64URL, "auth": Base64.encodeURLSafe(SecureRandom.bytes(count: 16))],
        ]
    }

    /// A public endpoint (an address literal: no DNS in tests) the SSRF
    /// guard accepts; never contacted unless web push is on.
    static func publicEndpoint(_ id: String = "subscription-1") -> String {
        "https://93.184.215.14/wp/\(id)"
    }
}
