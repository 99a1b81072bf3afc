/// One event of a user's order, as the event stream reads it.
package struct StreamEvent: Sendable, Equatable {
    package let position: FeedPosition
    package let type: WebhookEventType
    /// The webhook body of the event (`EventBody`).
    package let body: [UInt8]
}
