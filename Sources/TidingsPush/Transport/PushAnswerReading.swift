/// What a push service's answer means to the client that sent the push.
package enum PushAnswerReading: Sendable, Equatable {
    /// The push's outcome.
    case result(PushResult)
    /// The service refused the credential (APNs `ExpiredProviderToken` or
    /// `InvalidProviderToken`, FCM 401): refresh it and send once more;
    /// `ifRepeated` is the outcome when that is not possible or was done.
    case credentialRejected(ifRepeated: PushResult)
}
