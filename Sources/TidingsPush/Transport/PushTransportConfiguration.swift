package import TidingsHTTPClient

/// Where the push services are and how the push engine's HTTP client talks
/// to them. Read from the environment by the application
/// (`TIDINGS_APNS_URL`, `TIDINGS_FCM_URL`, `TIDINGS_PUSH_CA_FILE`); the
/// defaults are the real services.
package struct PushTransportConfiguration: Sendable {
    /// APNs for every push app, whatever its environment (`TIDINGS_APNS_URL`:
    /// tests, a private gateway); nil for Apple's endpoint of each app's
    /// environment.
    package var apnsBaseURL: String?
    /// FCM HTTP v1 (`TIDINGS_FCM_URL`).
    package var fcmBaseURL = "https://fcm.googleapis.com"
    /// Extra trusted CA certificates, PEM (`TIDINGS_PUSH_CA_FILE`).
    package var caFile: String?
    /// Time for one request to a push service or token endpoint.
    package var timeout: Duration = .seconds(30)
    package var connectTimeout: Duration = .seconds(10)
    /// Streams in flight on a push app's one connection.
    package var maxConcurrentStreams = 1000
    /// A longer `Retry-After` from a push service is cut to this.
    package var longestRetryAfter: Duration = .seconds(3600)
    package var userAgent = "Tidings-Push"
    /// Web Push endpoints on loopback and private addresses
    /// (`TIDINGS_ALLOW_PRIVATE_TARGETS`): tests and local use only.
    package var webPushAllowsPrivateTargets = false

    package init() {}

    /// The base URL of APNs for a push app of `environment`.
    package func apnsBaseURL(for environment: APNsEnvironment) -> String {
        Self.withoutTrailingSlashes(apnsBaseURL ?? environment.defaultBaseURL)
    }

    /// The base URL of FCM.
    package var fcmBase: String {
        Self.withoutTrailingSlashes(fcmBaseURL)
    }

    /// What each push app's own `HTTPClient` needs: HTTP/2 with one
    /// connection per host carrying many streams, the extra CA file, no
    /// redirects, and no SSRF guard (every URL it requests comes from the
    /// operator: these base URLs and the token URI of a service account an
    /// admin registered). TLS certificates are always verified.
    package var httpClientConfiguration: HTTPClientConfiguration {
        var configuration = HTTPClientConfiguration(
            connectTimeout: min(connectTimeout, timeout),
            timeout: timeout,
            maxResponseSize: PushAnswerBody.maximumSize,
            maxRedirects: 0,
            allowPrivateTargets: false,
            userAgent: userAgent,
            maxConnectionsPerHost: 1,
            maxTotalConnections: 16
        )
        configuration.urlSource = .operatorConfiguration
        configuration.extraCAFile = caFile
        configuration.http2Multiplexing = HTTP2Multiplexing(maxConcurrentStreams: maxConcurrentStreams)
        return configuration
    }

    /// The Web Push client's: endpoints are tenants' URLs (a browser's
    /// subscription), so unlike the other push services the SSRF guard
    /// checks every address connected to. HTTP/2 multiplexed where the push
    /// service offers it, a few connections per host for one that speaks
    /// only HTTP/1.1, no redirects, TLS verified against the system CAs and
    /// `TIDINGS_PUSH_CA_FILE`. Answers are snippets (`postPush`): capped,
    /// never decoded, read only for their status.
    package var webPushHTTPClientConfiguration: HTTPClientConfiguration {
        var configuration = HTTPClientConfiguration(
            connectTimeout: min(connectTimeout, timeout),
            timeout: timeout,
            maxResponseSize: PushAnswerBody.maximumSize,
            maxRedirects: 0,
            allowPrivateTargets: webPushAllowsPrivateTargets,
            userAgent: userAgent,
            maxConnectionsPerHost: 4,
            maxTotalConnections: 64
        )
        configuration.urlSource = .tenants
        configuration.extraCAFile = caFile
        configuration.http2Multiplexing = HTTP2Multiplexing(maxConcurrentStreams: maxConcurrentStreams)
        return configuration
    }

    /// `text` as a base URL (https, a host, an optional path prefix, no
    /// query, fragment or user information), without trailing slashes; nil
    /// when it is not one. For reading `TIDINGS_APNS_URL` and `TIDINGS_FCM_URL`.
    package static func baseURL(_ text: String) -> String? {
        guard text.utf8.count <= 2048, text.lowercased().hasPrefix("https://"),
            !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }),
            let origin = HTTPOrigin(url: text), origin.scheme == "https"
        else { return nil }
        let authority = text.dropFirst("https://".count).prefix { $0 != "/" }
        guard !authority.contains("@") else { return nil }
        return withoutTrailingSlashes(text)
    }

    private static func withoutTrailingSlashes(_ text: String) -> String {
        var trimmed = Substring(text)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
