import FoundationEssentials
@testable import TidingsApp
import TidingsCrypto
import TidingsDomain
import TidingsHTTPClient

/// A web device's registration as a browser (or anyone) sends it. The first
/// byte picks: (even) `WebPushSubscription(endpoint:p256dh:auth:)` on the
/// rest split at NUL; (odd) the whole `POST /v1/devices` body decoded as
/// `RegisterDeviceBody`. No trap on any input; what is accepted is what
/// the contract says (an https endpoint of at most 2048 bytes with a host,
/// no user information or fragment, whose origin parses; p256dh a P-256
/// point in canonical base64url; auth 16 bytes in canonical base64url) and
/// reads back as itself; a problem names one of the three fields; a body
/// accepted for web carries a subscription whose endpoint is its token,
/// and one for any other platform carries none.
enum WebPushSubscriptionTarget {
    static let decoder = JSONDecoder()

    static func run(_ input: FuzzInput) {
        guard let selector = input.bytes.first else { return }
        if selector % 2 == 0 {
            let parts = FuzzInput(Array(input.bytes.dropFirst())).strings()
            guard parts.count >= 3 else { return }
            do {
                let subscription = try WebPushSubscription(endpoint: parts[0], p256dh: parts[1], auth: parts[2])
                checkAccepted(subscription)
            } catch {
                check(["endpoint", "keys.p256dh", "keys.auth"].contains(error.field), "problem names \(error.field)")
                check(!error.message.isEmpty && error.message.utf8.allSatisfy { (0x20...0x7E).contains($0) }, "message \(error.message.debugDescription)")
            }
        } else {
            guard let body = try? decoder.decode(RegisterDeviceBody.self, from: Data(input.bytes.dropFirst())) else { return }
            let registration = body.registration
            if registration.platform == .web {
                guard let subscription = registration.webPush else {
                    check(false, "a web registration without a subscription")
                    return
                }
                check(registration.pushToken == subscription.endpoint, "the endpoint is the push token")
                checkAccepted(subscription)
            } else {
                check(registration.webPush == nil, "a \(registration.platform) registration with a subscription")
            }
        }
    }

    static func checkAccepted(_ subscription: WebPushSubscription) {
        let endpoint = subscription.endpoint
        check(endpoint.hasPrefix("https://") && endpoint.utf8.count <= WebPushSubscription.maximumEndpointLength, "endpoint \(endpoint.debugDescription)")
        check(!endpoint.utf8.contains(UInt8(ascii: "#")) && endpoint.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "endpoint bytes")
        let authority = endpoint.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" }
        check(!authority.contains("@"), "user information in \(endpoint.debugDescription)")
        let origin = HTTPOrigin(url: endpoint)
        check(origin?.scheme == "https" && origin?.host == subscription.host, "origin of \(endpoint.debugDescription): \(String(describing: origin))")
        check(subscription.p256dh.utf8.count == 87, "p256dh length")
        check((try? P256PublicKey(base64URL: subscription.p256dh))?.base64URL == subscription.p256dh, "p256dh does not read back")
        check(subscription.auth.utf8.count == 22 && Base64.decode(subscription.auth)?.count == 16, "auth")
        check(Base64.encodeURLSafe(Base64.decode(subscription.auth) ?? []) == subscription.auth, "auth not canonical")
        let again = try? WebPushSubscription(endpoint: endpoint, p256dh: subscription.p256dh, auth: subscription.auth)
        check(again == subscription, "an accepted subscription does not read back as itself")
    }
}
