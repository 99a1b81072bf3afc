package import FoundationEssentials
import TidingsCrypto
package import TidingsHTTPClient
import TidingsObservability

/// Sends Web Push messages signed with the deployment's VAPID key: `POST`
/// to each subscription's endpoint with the payload encrypted for the
/// browser (RFC 8291 `aes128gcm`, a fresh key and salt per message), `TTL`,
/// `Urgency`, `Topic` and `Authorization: vapid t=<JWT>, k=<key>`.
///
/// Endpoints are tenants' URLs: the `HTTPClient` given must keep the SSRF
/// guard on (`PushTransportConfiguration.webPushHTTPClientConfiguration`),
/// so every address connected to is checked at connect time. Answers are
/// read from their status alone (`WebPushAnswer`).
package final class WebPushClient: Sendable {
    package let tokens: VAPIDTokens
    private let http: HTTPClient
    private let timeout: Duration
    private let longestRetryAfter: Duration
    private let now: @Sendable () -> Date

    /// `privateKey` is the VAPID key's PEM (PKCS#8 or SEC1, P-256).
    package init(
        privateKey: String,
        subject: String,
        http: HTTPClient,
        configuration: PushTransportConfiguration = PushTransportConfiguration(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(PushCredentialError) {
        let key: P256KeyPair
        do {
            key = try P256KeyPair(pem: privateKey)
        } catch {
            throw PushCredentialError("the VAPID private key \(error)")
        }
        self.tokens = try VAPIDTokens(key: key, subject: subject, now: now)
        self.http = http
        self.timeout = configuration.timeout
        self.longestRetryAfter = configuration.longestRetryAfter
        self.now = now
    }

    /// Encrypts and sends `push` and calls `completion` once with its
    /// outcome: on the HTTP client's driver thread (keep it short), or on
    /// this thread when the push is refused before sending. Encryption runs
    /// on the calling thread (~100-160 µs of CPU).
    package func send(_ push: WebPush, completion: @escaping @Sendable (PushResult) -> Void) {
        if let refusal = push.refusal() {
            completion(refusal)
            return
        }
        guard let audience = push.audience else {
            completion(.deviceGone(reason: "Web Push: the subscription's endpoint is not an https URL"))
            return
        }
        let authorization: String
        do {
            authorization = try tokens.authorization(for: audience)
        } catch {
            completion(.failed(reason: "Web Push: \(error.message)"))
            return
        }
        let body: [UInt8]
        do {
            body = try WebPushEncryption.encrypt(
                plaintext: push.payload, userAgentPublicKey: push.userAgentPublicKey, authSecret: push.authSecret)
        } catch {
            switch error {
            case .userAgentKey, .authSecretLength:
                completion(.deviceGone(reason: "Web Push: the subscription's keys cannot be used: \(error)"))
            default:
                completion(.failed(reason: "Web Push: could not encrypt the message: \(error)"))
            }
            return
        }
        http.postPush(
            url: push.endpoint,
            headers: push.headers(authorization: authorization),
            body: body,
            timeout: timeout,
            service: "Web Push",
            read: { [self] response in
                if response.status == 401 || response.status == 403 {
                    tokens.rejected(authorization, audience: audience)
                }
                return .result(
                    WebPushAnswer.read(
                        status: response.status, headers: response.headers, now: now(), longestRetryAfter: longestRetryAfter
                    ))
            },
            retryWithNewCredential: { false },
            completion: completion
        )
    }

    /// Sends `push` and returns its outcome.
    package func send(_ push: WebPush) async -> PushResult {
        await withCheckedContinuation { continuation in
            send(push) { continuation.resume(returning: $0) }
        }
    }
}
