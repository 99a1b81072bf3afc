/// One message to one browser through its push service (RFC 8030): what
/// goes into the request to the subscription's endpoint. The payload is the
/// JSON the push engine wrote, in plain; `WebPushClient` encrypts it for the
/// subscription (RFC 8291) just before sending.
package struct WebPush: Sendable, Equatable {
    /// `Urgency` (RFC 8030 5.3): how readily the browser's device wakes for it.
    package enum Urgency: String, Sendable {
        case veryLow = "very-low"
        case low
        case normal
        case high
    }

    /// The subscription's endpoint: an https URL on the push service,
    /// checked when the device registered.
    package var endpoint: String
    /// `keys.p256dh`, the browser's P-256 public key, uncompressed (65 bytes).
    package var userAgentPublicKey: [UInt8]
    /// `keys.auth`, the subscription's 16-byte secret. Not for logs.
    package var authSecret: [UInt8]
    /// The plaintext payload, at most `WebPushEncryption.maximumPlaintextByteCount`
    /// (3993) bytes.
    package var payload: [UInt8]
    /// `TTL`: seconds the push service keeps the message for a browser
    /// that is offline; 0 means now or never.
    package var timeToLive: Int
    package var urgency: Urgency
    /// `Topic`: a newer message with the same topic replaces an older one
    /// the push service still holds. At most 32 base64url characters.
    package var topic: String?

    /// The longest `Topic` (RFC 8030 5.4).
    package static let maximumTopicLength = 32
    /// The longest `TTL` sent: four weeks, what push services keep at most.
    package static let maximumTimeToLive = 28 * 86_400

    package init(
        endpoint: String, userAgentPublicKey: [UInt8], authSecret: [UInt8], payload: [UInt8],
        timeToLive: Int, urgency: Urgency, topic: String? = nil
    ) {
        self.endpoint = endpoint
        self.userAgentPublicKey = userAgentPublicKey
        self.authSecret = authSecret
        self.payload = payload
        self.timeToLive = timeToLive
        self.urgency = urgency
        self.topic = topic
    }
}
