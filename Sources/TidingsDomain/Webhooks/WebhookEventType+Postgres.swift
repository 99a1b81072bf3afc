import TidingsPostgres

extension WebhookEventType {
    /// A `text[]` parameter of the type names.
    static func postgresArray(_ types: [WebhookEventType]) -> PostgresArray {
        PostgresArray(types.map(\.rawValue))
    }

    /// Reads a `text[]` column written by `postgresArray`.
    static func parse(postgresArray text: String) throws(PostgresError) -> [WebhookEventType] {
        guard text.hasPrefix("{"), text.hasSuffix("}") else {
            throw PostgresError(code: .decoding, message: "event_types is not an array literal")
        }
        var types: [WebhookEventType] = []
        for element in text.dropFirst().dropLast().split(separator: ",") {
            guard let type = WebhookEventType(rawValue: String(element)) else {
                throw PostgresError(code: .decoding, message: "\(element.debugDescription.prefix(40)) is not a webhook event type")
            }
            types.append(type)
        }
        return types
    }
}
