import TidingsDomain
import TidingsHTTPServer

/// `POST /v1/webhooks` body; `event_types` defaults to every type.
struct CreateWebhookBody: Decodable {
    let webhook: NewWebhook
    /// `webhook.url` as parsed, for the SSRF check of its host.
    let url: NormalizedURL

    enum CodingKeys: String, CodingKey {
        case url, description
        case eventTypes = "event_types"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try WebhookFieldRules.url(try container.decode(String.self, forKey: .url), key: .url, in: container)
        var eventTypes = WebhookEventType.subscribable
        if let names = try container.decodeUnlessAbsent([String].self, forKey: .eventTypes) {
            eventTypes = try WebhookFieldRules.eventTypes(names, key: .eventTypes, in: container)
        }
        let description = try TextField.decodeOptional(.description, in: container) {
            try WebhookFieldRules.validateDescription($0, key: .description, in: container)
        }
        webhook = NewWebhook(url: url.text, eventTypes: eventTypes, description: description)
    }
}
