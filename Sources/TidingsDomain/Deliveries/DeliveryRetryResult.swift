/// The answer to a manual retry.
package enum DeliveryRetryResult: Sendable {
    /// Queued for an attempt now.
    case queued(Delivery)
    /// A dispatcher is sending it at this moment.
    case inFlight
    /// Its webhook is disabled: enable it first.
    case webhookDisabled
    case notFound
}
