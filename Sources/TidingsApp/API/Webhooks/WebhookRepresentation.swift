import FoundationEssentials
import TidingsDomain

/// A webhook as the API shows it. `secret` is present only in the create
/// and rotate-secret answers, the one time a new secret is revealed.
struct WebhookRepresentation: Encodable, Sendable {
    let id: UUID
    let url: String
    let eventTypes: [String]
    let description: String?
    let enabled: Bool
    let disabledReason: String?
    let disabledAt: Date?
    let global: Bool
    let createdAt: Date
    let updatedAt: Date
    let secret: String?

    init(_ webhook: Webhook) {
        self.init(webhook, secret: nil)
    }

    init(_ issued: WebhookWithSecret) {
        self.init(issued.webhook, secret: issued.secret)
    }

    private init(_ webhook: Webhook, secret: String?) {
        id = webhook.id
        url = webhook.url
        eventTypes = webhook.eventTypes.map(\.rawValue)
        description = webhook.description
        enabled = webhook.isEnabled
        disabledReason = webhook.disabledReason
        disabledAt = webhook.disabledAt
        global = webhook.isGlobal
        createdAt = webhook.createdAt
        updatedAt = webhook.updatedAt
        self.secret = secret
    }

    enum CodingKeys: String, CodingKey {
        case id, url, description, enabled, global, secret
        case eventTypes = "event_types"
        case disabledReason = "disabled_reason"
        case disabledAt = "disabled_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.canonicalString, forKey: .id)
        try container.encode(url, forKey: .url)
        try container.encode(eventTypes, forKey: .eventTypes)
        try container.encode(description, forKey: .description)
        try container.encode(enabled, forKey: .enabled)
        try container.encode(disabledReason, forKey: .disabledReason)
        try container.encode(disabledAt, forKey: .disabledAt)
        try container.encode(global, forKey: .global)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(secret, forKey: .secret)
    }
}
