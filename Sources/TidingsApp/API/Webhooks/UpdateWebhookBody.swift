import TidingsDomain
import TidingsHTTPServer

/// `PATCH /v1/webhooks/{id}` body: only the fields present change;
/// `description: null` clears the description, `enabled: false` disables
/// the webhook and `enabled: true` enables it again.
struct UpdateWebhookBody: Decodable {
    let changes: WebhookChanges
    /// `changes.url` as parsed, for the SSRF check of its host.
    let url: NormalizedURL?

    enum CodingKeys: String, CodingKey {
        case url, description, enabled
        case eventTypes = "event_types"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var changes = WebhookChanges()
        var url: NormalizedURL?
        if container.contains(.url) {
            url = try WebhookFieldRules.url(try container.decode(String.self, forKey: .url), key: .url, in: container)
            changes.url = url?.text
        }
        if container.contains(.eventTypes) {
            changes.eventTypes = try WebhookFieldRules.eventTypes(
                try container.decode([String].self, forKey: .eventTypes),
                key: .eventTypes,
                in: container
            )
        }
        changes.description = try TextField.decodeClearable(.description, in: container) {
            try WebhookFieldRules.validateDescription($0, key: .description, in: container)
        }
        if container.contains(.enabled) {
            changes.enabled = try container.decode(Bool.self, forKey: .enabled)
        }
        self.changes = changes
        self.url = url
    }
}
