/// A webhook together with its newly issued signing secret: the only moment
/// the secret leaves the server (on creation and on rotation).
package struct WebhookWithSecret: Sendable {
    package let webhook: Webhook
    /// `whsec_` + base64 of 32 random bytes.
    package let secret: String
}
