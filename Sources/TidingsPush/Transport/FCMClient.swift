package import FoundationEssentials
package import TidingsHTTPClient
package import TidingsObservability

/// Sends data messages of one FCM push app (one service account) through
/// the push engine's `HTTPClient`: `POST
/// {base}/v1/projects/<project>/messages:send` over HTTP/2 with the
/// account's access token. Each push ends in one `PushResult`; a 401 makes
/// the token be fetched anew and the push sent once more inside `send`.
package final class FCMClient: Sendable {
    package let projectID: String
    package let accessToken: FCMAccessToken
    private let url: String
    private let http: HTTPClient
    private let timeout: Duration
    private let longestRetryAfter: Duration
    private let now: @Sendable () -> Date

    /// Reads the service account's key.
    package init(
        serviceAccount: FCMServiceAccount,
        http: HTTPClient,
        configuration: PushTransportConfiguration = PushTransportConfiguration(),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) throws(PushCredentialError) {
        self.projectID = serviceAccount.projectID
        self.accessToken = try FCMAccessToken(
            serviceAccount: serviceAccount, http: http, timeout: configuration.timeout, now: now, logger: logger
        )
        self.url = "\(configuration.fcmBase)/v1/projects/\(serviceAccount.projectID)/messages:send"
        self.http = http
        self.timeout = configuration.timeout
        self.longestRetryAfter = configuration.longestRetryAfter
        self.now = now
    }

    /// Sends `push` and calls `completion` once with its outcome: on the
    /// HTTP client's driver thread (keep it short), or on this thread when
    /// the push is refused before sending or the token endpoint failed a
    /// moment ago.
    package func send(_ push: FCMPush, completion: @escaping @Sendable (PushResult) -> Void) {
        if let refusal = push.refusal() {
            completion(refusal)
            return
        }
        attempt(body: push.messageBody(), isRetry: false, completion: completion)
    }

    /// Sends `push` and returns its outcome.
    package func send(_ push: FCMPush) async -> PushResult {
        await withCheckedContinuation { continuation in
            send(push) { continuation.resume(returning: $0) }
        }
    }

    private func attempt(body: [UInt8], isRetry: Bool, completion: @escaping @Sendable (PushResult) -> Void) {
        accessToken.withToken { [self] result in
            switch result {
            case .failure(let error):
                let reason = "FCM: \(error.message)"
                completion(error.isTransient ? .retry(after: nil, reason: reason) : .failed(reason: reason))
            case .success(let token):
                post(body: body, token: token, isRetry: isRetry, completion: completion)
            }
        }
    }

    private func post(body: [UInt8], token: String, isRetry: Bool, completion: @escaping @Sendable (PushResult) -> Void) {
        http.postPush(
            url: url,
            headers: [("authorization", "Bearer \(token)"), ("content-type", "application/json")],
            body: body,
            timeout: timeout,
            service: "FCM",
            read: { [self] response in
                FCMAnswer.read(
                    status: response.status,
                    headers: response.headers,
                    body: response.body,
                    truncated: response.isBodyTruncated,
                    now: now(),
                    longestRetryAfter: longestRetryAfter
                )
            },
            retryWithNewCredential: { [self] in
                guard !isRetry, accessToken.rejected(token) else { return false }
                attempt(body: body, isRetry: true, completion: completion)
                return true
            },
            completion: completion
        )
    }
}
