import Foundation
import TidingsCrypto
import TidingsHTTPClient
import TidingsObservability
import TidingsPush
import TidingsSynchronization
import TidingsTestSupport

/// The push engine's HTTP client and configuration, pointed at `mock`.
struct PushFixture {
    let mock: MockPushServer
    let configuration: PushTransportConfiguration
    let http: HTTPClient

    init(mock: MockPushServer, trustingMockCA: Bool = true) throws {
        var configuration = PushTransportConfiguration()
        configuration.apnsBaseURL = mock.baseURL
        configuration.fcmBaseURL = mock.baseURL + "/"
        configuration.caFile = trustingMockCA ? mock.caFile : nil
        configuration.timeout = .seconds(20)
        self.mock = mock
        self.configuration = configuration
        self.http = try HTTPClient(configuration: configuration.httpClientConfiguration, logger: quietLogger)
    }

    func apnsClient(now: @escaping @Sendable () -> Date = { Date() }) throws -> APNsClient {
        try APNsClient(
            appID: mock.startup.topic, environment: .sandbox, teamID: mock.startup.team_id, keyID: mock.startup.key_id,
            privateKey: try mock.apnsKey, http: http, configuration: configuration, now: now
        )
    }

    func fcmClient(now: @escaping @Sendable () -> Date = { Date() }) throws -> FCMClient {
        try FCMClient(
            serviceAccount: try FCMServiceAccount(json: try mock.serviceAccountJSON),
            http: http, configuration: configuration, now: now, logger: quietLogger
        )
    }

    /// A Web Push client on an HTTP client of its own, as the push engine
    /// makes it (SSRF guard on; loopback allowed here unless told not to).
    func webPushClient(
        key: P256KeyPair, subject: String = "mailto:ops@example.com", allowPrivateTargets: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> (client: WebPushClient, http: HTTPClient) {
        var configuration = self.configuration
        configuration.webPushAllowsPrivateTargets = allowPrivateTargets
        let http = try HTTPClient(configuration: configuration.webPushHTTPClientConfiguration, logger: quietLogger)
        let client = try WebPushClient(privateKey: try key.pkcs8PEM(), subject: subject, http: http, configuration: configuration, now: now)
        return (client, http)
    }

    func stop() {
        http.stop()
    }
}

/// Runs `body` with a fresh mock and a push client fixture, and stops both.
func withMockPush(_ body: (PushFixture) async throws -> Void) async throws {
    let mock = try await MockPushServer.start()
    defer { mock.stop() }
    let fixture = try PushFixture(mock: mock)
    defer { fixture.stop() }
    try await body(fixture)
}

let quietLogger = Logger(label: "test", logLevel: .error, sink: CapturingLogSink())

/// The decoded header and claims of a compact JWT.
func jwtParts(_ token: String) -> (header: [String: Any], claims: [String: Any])? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, let header = Base64.decode(parts[0]), let claims = Base64.decode(parts[1]),
        let headerObject = try? JSONSerialization.jsonObject(with: Data(header)) as? [String: Any],
        let claimsObject = try? JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any]
    else { return nil }
    return (headerObject, claimsObject)
}
