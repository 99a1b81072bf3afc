package import FoundationEssentials
package import TidingsHTTPClient
import TidingsObservability

/// Sends pushes of one APNs push app (one bundle id, one signing key, one
/// environment) through the push engine's `HTTPClient`: `POST
/// {base}/3/device/<token>` over HTTP/2, many at once on the client's one
/// connection to the host. Each push ends in one `PushResult`; a rejected
/// provider token is replaced and the push sent once more inside `send`.
package final class APNsClient: Sendable {
    /// The bundle id, sent as `apns-topic`.
    package let appID: String
    package let environment: APNsEnvironment
    package let providerToken: APNsProviderToken
    private let baseURL: String
    private let http: HTTPClient
    private let timeout: Duration
    private let longestRetryAfter: Duration
    private let now: @Sendable () -> Date

    /// Checks the app id (a bundle id: letters, digits, `.`, `-`, `_`) and
    /// reads the key; `privateKey` is the `.p8` file's PEM text.
    package init(
        appID: String,
        environment: APNsEnvironment,
        teamID: String,
        keyID: String,
        privateKey: String,
        http: HTTPClient,
        configuration: PushTransportConfiguration = PushTransportConfiguration(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(PushCredentialError) {
        guard (1...255).contains(appID.utf8.count), appID.utf8.allSatisfy(Self.isBundleIDByte) else {
            throw PushCredentialError("the APNs app id (bundle id) must be 1 to 255 letters, digits, '.', '-' or '_'")
        }
        self.appID = appID
        self.environment = environment
        self.providerToken = try APNsProviderToken(teamID: teamID, keyID: keyID, privateKey: privateKey, now: now)
        self.baseURL = configuration.apnsBaseURL(for: environment)
        self.http = http
        self.timeout = configuration.timeout
        self.longestRetryAfter = configuration.longestRetryAfter
        self.now = now
    }

    /// Sends `push` and calls `completion` once with its outcome: on the
    /// HTTP client's driver thread (keep it short), or on this thread when
    /// the push is refused before sending (too large, a bad token).
    package func send(_ push: APNsPush, completion: @escaping @Sendable (PushResult) -> Void) {
        if let refusal = push.refusal() {
            completion(refusal)
            return
        }
        attempt(push, isRetry: false, completion: completion)
    }

    /// Sends `push` and returns its outcome.
    package func send(_ push: APNsPush) async -> PushResult {
        await withCheckedContinuation { continuation in
            send(push) { continuation.resume(returning: $0) }
        }
    }

    private func attempt(_ push: APNsPush, isRetry: Bool, completion: @escaping @Sendable (PushResult) -> Void) {
        let token: String
        do {
            token = try providerToken.current()
        } catch {
            completion(.failed(reason: "APNs: \(error.message)"))
            return
        }
        http.postPush(
            url: "\(baseURL)/3/device/\(push.token.lowercased())",
            headers: push.headers(topic: appID, providerToken: token),
            body: push.payload,
            timeout: timeout,
            service: "APNs",
            read: { [self] response in
                APNsAnswer.read(
                    status: response.status,
                    headers: response.headers,
                    body: response.body,
                    truncated: response.isBodyTruncated,
                    sentID: push.id?.uuidString,
                    now: now(),
                    longestRetryAfter: longestRetryAfter
                )
            },
            retryWithNewCredential: { [self] in
                guard !isRetry, providerToken.rejected(token) else { return false }
                attempt(push, isRetry: true, completion: completion)
                return true
            },
            completion: completion
        )
    }

    private static func isBundleIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
