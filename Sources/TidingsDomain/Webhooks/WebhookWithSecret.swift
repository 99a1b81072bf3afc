/// A webhook together with its newly issued signing secret: the only moment
/// the secret leaves the server (on creation and on rotation).
public struct WebhookWithSecret: Sendable {
    public let webhook: Webhook
    /// `whsec_` + base64 of 32 random bytes.
    public let secret: String
}
