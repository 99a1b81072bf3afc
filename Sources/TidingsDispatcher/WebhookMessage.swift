import FoundationEssentials
import TidingsCrypto
import TidingsDomain
import TidingsHTTPClient

/// A claimed delivery as the Standard Webhooks request that carries it.
enum WebhookMessage {
    /// `{"type","timestamp","data"}`, as the event stream sends it too.
    static func body(of delivery: ClaimedDelivery) -> [UInt8] {
        EventBody.json(type: delivery.eventType, timestamp: delivery.eventTimestamp, data: delivery.eventData)
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
