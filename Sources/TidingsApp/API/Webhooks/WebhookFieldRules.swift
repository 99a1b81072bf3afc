import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

/// Validation shared by the webhook create and update bodies; the limits
/// match the CHECK constraints of the `webhooks` table. Whether the URL's
/// host may be called at all is the SSRF guard's decision, made afterwards.
enum WebhookFieldRules {
    static let urlMaxLength = 2048
    static let descriptionMaxLength = 500

    static func validateURL<Key: CodingKey>(_ text: String, key: Key, in container: KeyedDecodingContainer<Key>) throws {
        guard text.unicodeScalars.count <= urlMaxLength else {
            throw container.fieldProblem(key, "must be at most \(urlMaxLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw container.fieldProblem(key, "must not contain spaces or control characters")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw container.fieldProblem(key, "must be an absolute http or https URL")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw container.fieldProblem(key, "must name a host")
        }
        // Credentials in the URL would be shown by every read of the webhook;
        // receivers verify the signature instead.
        guard url.user(percentEncoded: true) == nil, url.password(percentEncoded: true) == nil else {
            throw container.fieldProblem(key, "must not contain a user name or password")
        }
    }

    /// Known, distinct event types in their canonical order.
    static func eventTypes<Key: CodingKey>(_ names: [String], key: Key, in container: KeyedDecodingContainer<Key>) throws -> [WebhookEventType] {
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
