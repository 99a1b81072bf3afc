package import FoundationEssentials

/// How one attempt of a push ended, as the dispatcher writes it back.
package struct PushAttemptResult: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// Accepted; the APNs `apns-id` or FCM message name.
        case sent(providerID: String)
        /// Try again after this long (unless a newer push of the same kind
        /// waits for the device: then this one is superseded).
        case retry(after: Duration, reason: String)
        /// Refused for good, or out of attempts.
        case failed(reason: String)
        /// The push service says the token is dead: the device is removed
        /// and announced as `device.invalidated`.
        case deviceGone(reason: String)
    }

    package let pushID: UUID
    package let deviceID: UUID
    package let outcome: Outcome

    package init(pushID: UUID, deviceID: UUID, outcome: Outcome) {
        self.pushID = pushID
        self.deviceID = deviceID
        self.outcome = outcome
    }
}
