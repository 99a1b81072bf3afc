import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

/// Validation shared by the webhook create and update bodies; the limits
/// match the CHECK constraints of the `webhooks` table. Whether the URL's
/// host may be called at all is the SSRF guard's decision, made afterwards.
enum WebhookFieldRules {
    static let urlMaxLength = 2048
    static let descriptionMaxLength = 500

    /// The URL as stored: normalized by the same rules as a watch's URL
    /// (`URLNormalizer`: http or https, a host, a port in 1-65535, no user
    /// name or password, no IPv6 zone id), so both kinds of outbound URL
    /// are parsed once and alike.
    static func url<Key: CodingKey>(_ text: String, key: Key, in container: KeyedDecodingContainer<Key>) throws -> NormalizedURL {
        guard text.unicodeScalars.count <= urlMaxLength else {
            throw container.fieldProblem(key, "must be at most \(urlMaxLength) characters")
        }
        return try WatchValidation.url(text, key: key, in: container)
    }

    /// Known, distinct event types in their canonical order.
    static func eventTypes<Key: CodingKey>(_ names: [String], key: Key, in container: KeyedDecodingContainer<Key>) throws
        -> [WebhookEventType]
    {
        guard !names.isEmpty else {
            throw container.fieldProblem(key, "must list at least one event type")
        }
        var types: Set<WebhookEventType> = []
        for name in names {
            guard let type = WebhookEventType(rawValue: name), type.isSubscribable else {
                let allowed = WebhookEventType.subscribable.map(\.rawValue).joined(separator: ", ")
                throw container.fieldProblem(key, "\"\(name.prefix(64))\" is not an event type; expected one of \(allowed)")
            }
            guard types.insert(type).inserted else {
                throw container.fieldProblem(key, "lists \"\(name)\" more than once")
            }
        }
        return WebhookEventType.subscribable.filter(types.contains)
    }

    static func validateDescription<Key: CodingKey>(_ description: String, key: Key, in container: KeyedDecodingContainer<Key>) throws {
        try TextField.validate(description, key: key, in: container, maxLength: descriptionMaxLength)
    }
}
