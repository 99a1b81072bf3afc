import TidingsCrypto
import TidingsHTTPClient

extension WebPush {
    /// Why this push cannot be sent, or nil. A subscription whose keys are
    /// unusable can never be pushed: the device is gone. A payload too large
    /// or a bad topic is this push's fault: it fails.
    package func refusal() -> PushResult? {
        guard audience != nil else {
            return .deviceGone(reason: "Web Push: the subscription's endpoint is not an https URL")
        }
        guard userAgentPublicKey.count == P256PublicKey.byteCount, userAgentPublicKey.first == 0x04 else {
            return .deviceGone(reason: "Web Push: the subscription's p256dh is not an uncompressed P-256 key")
        }
        guard authSecret.count == WebPushEncryption.authSecretByteCount else {
            return .deviceGone(reason: "Web Push: the subscription's auth secret is not 16 bytes")
        }
        if payload.count > WebPushEncryption.maximumPlaintextByteCount {
            return .failed(
                reason:
                    "Web Push: the payload is \(payload.count) bytes; at most \(WebPushEncryption.maximumPlaintextByteCount) fit in a message"
            )
        }
        if let topic, !Self.isTopic(topic) {
            return .failed(reason: "Web Push: the topic must be 1 to \(Self.maximumTopicLength) base64url characters")
        }
        guard (0...Self.maximumTimeToLive).contains(timeToLive) else {
            return .failed(reason: "Web Push: the TTL must be 0 to \(Self.maximumTimeToLive) seconds")
        }
        return nil
    }

    /// The `aud` of this push's VAPID token: the endpoint's origin,
    /// `https://host[:port]` (the port only when not 443); nil when the
    /// endpoint is not an https URL.
    package var audience: String? {
        guard let origin = HTTPOrigin(url: endpoint), origin.scheme == "https" else { return nil }
        return origin.port == 443 ? "https://\(origin.host)" : "https://\(origin.host):\(origin.port)"
    }

    /// The request headers, given the body is already encrypted and the
    /// VAPID `Authorization` value.
    package func headers(authorization: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", authorization),
            ("content-encoding", "aes128gcm"),
            ("content-type", "application/octet-stream"),
            ("ttl", String(timeToLive)),
            ("urgency", urgency.rawValue),
        ]
        if let topic { headers.append(("topic", topic)) }
        return headers
    }

    static func isTopic(_ text: String) -> Bool {
        (1...maximumTopicLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }
}
