/// What became of one push, the same for APNs and FCM: the dispatcher acts
/// on it (records it, removes the device, schedules a retry). Reasons are
/// short texts Tidings writes itself from the service's error code and
/// status; they never contain a credential, a device token or free text
/// from the answer.
package enum PushResult: Sendable, Equatable, CustomStringConvertible {
    /// The service accepted the push. `providerID` is APNs' `apns-id` or
    /// FCM's message name (empty if a 200 answer carried none readable).
    case delivered(providerID: String)
    /// The device token is dead or not this app's (APNs 410, 400
    /// `BadDeviceToken` or `DeviceTokenNotForTopic`; FCM 404 `UNREGISTERED`
    /// or a 400 `INVALID_ARGUMENT` about the token): remove the device.
    case deviceGone(reason: String)
    /// Worth trying again later (429, 5xx, a connection failure or timeout):
    /// `after` is the service's `Retry-After`, already capped, or nil for the
    /// dispatcher's own schedule.
    case retry(after: Duration?, reason: String)
    /// This push cannot succeed as it is (too large, refused, the push app's
    /// credentials rejected): record the reason and give up on it.
    case failed(reason: String)

    /// `delivered`, `device_gone`, `retry` or `failed`: a metric label.
    package var outcome: String {
        switch self {
        case .delivered: "delivered"
        case .deviceGone: "device_gone"
        case .retry: "retry"
        case .failed: "failed"
        }
    }

    /// The reason, or the provider id of a delivered push.
    package var detail: String {
        switch self {
        case .delivered(let providerID): providerID
        case .deviceGone(let reason), .retry(_, let reason), .failed(let reason): reason
        }
    }

    package var description: String {
        "\(outcome): \(detail)"
    }
}
