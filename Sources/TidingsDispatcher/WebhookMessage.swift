import FoundationEssentials
import TidingsCrypto
import TidingsDomain
import TidingsHTTPClient
import TidingsJSON

/// A claimed delivery as the Standard Webhooks request that carries it.
enum WebhookMessage {
    /// `{"type","timestamp","data"}`: the data is the stored JSON as is, so
    /// nothing is re-encoded on the way out.
    static func body(of delivery: ClaimedDelivery) -> [UInt8] {
        var writer = JSONWriter(capacity: delivery.eventData.utf8.count + 96)
        writer.beginObject()
        writer.key("type")
        writer.value(delivery.eventType)
        writer.key("timestamp")
        writer.value(delivery.eventTimestamp)
        writer.key("data")
        writer.rawValue(delivery.eventData)
        writer.endObject()
        return writer.bytes
    }

    /// The POST for one attempt: `webhook-id` is the event id (the same on
    /// every attempt), `webhook-timestamp` this attempt's time, and one
    /// signature per live secret (two during a rotation). The sealed
    /// secrets are opened here, for this signature only; one that does not
    /// open, or is not a `whsec_` secret, fails the attempt rather than
    /// sending it with fewer signatures or none.
    static func request(
        for delivery: ClaimedDelivery, timestamp: Int64, secrets: StoredSecrets, configuration: DispatcherConfiguration
    ) throws -> HTTPClientRequest {
        let body = body(of: delivery)
        let messageID = delivery.eventID.uuidString.lowercased()
        let signatures = try delivery.secrets.map { stored in
            guard let secret = WebhookSecret(encoded: try secrets.openWebhookSecret(stored)) else {
                throw SecretError.malformed
            }
            return secret.signature(messageID: messageID, timestamp: timestamp, body: body)
        }
        var request = HTTPClientRequest(
            url: delivery.url,
            method: "POST",
            headers: [
                ("webhook-id", messageID),
                ("webhook-timestamp", String(timestamp)),
                ("webhook-signature", signatures.joined(separator: " ")),
                ("content-type", "application/json"),
            ],
            body: body
        )
        request.timeout = configuration.timeout
        request.followRedirects = false
        request.maxResponseSize = DeliveryAttempt.responseSnippetLimit
        request.truncatesResponseBody = true
        return request
    }
}
