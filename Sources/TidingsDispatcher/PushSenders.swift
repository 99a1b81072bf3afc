import FoundationEssentials
import TidingsSynchronization
import TidingsDomain
import TidingsHTTPClient
import TidingsObservability
import TidingsPush

/// One client per push app, built from its opened credentials on first use
/// and rebuilt when the app changes (its `updated_at` moves: a new key, a
/// new environment). Clients share the dispatcher's HTTP client, so each
/// push service host has one connection carrying every app's streams, and
/// keep their provider or access tokens between pushes.
final class PushSenders: Sendable {
    enum Sender: Sendable {
        case apns(APNsClient)
        case fcm(FCMClient)
    }

    /// The app's row no longer exists (deleted while its push was claimed).
    struct MissingApp: Error, CustomStringConvertible {
        var description: String { "the push app was deleted" }
    }

    private struct Entry {
        let updatedAt: Date
        let sender: Sender
    }

    private let transport: PushTransportConfiguration
    private let http: HTTPClient
    private let logger: Logger
    private let cache = AdaptiveMutex<[UUID: Entry]>([:])

    init(transport: PushTransportConfiguration, http: HTTPClient, logger: Logger) {
        self.transport = transport
        self.http = http
        self.logger = logger
    }

    func sender(for push: ClaimedPush, apps: PushAppStore) throws -> Sender {
        if let entry = cache.withLock({ $0[push.pushAppID] }), entry.updatedAt >= push.pushAppUpdatedAt {
            return entry.sender
        }
        guard let (app, credentials) = try apps.credentials(of: push.pushAppID) else { throw MissingApp() }
        let sender = try Self.make(app: app, credentials: credentials, transport: transport, http: http, logger: logger)
        cache.withLock { $0[app.id] = Entry(updatedAt: app.updatedAt, sender: sender) }
        return sender
    }

    private static func make(
        app: PushApp, credentials: PushAppCredentials, transport: PushTransportConfiguration, http: HTTPClient, logger: Logger
    ) throws -> Sender {
        switch credentials {
        case .apns(let environment, let teamID, let keyID, let privateKeyPEM):
            let apnsEnvironment: TidingsPush.APNsEnvironment = switch environment {
            case .production: .production
            case .sandbox: .sandbox
            }
            return .apns(try APNsClient(
                appID: app.appID, environment: apnsEnvironment, teamID: teamID, keyID: keyID, privateKey: privateKeyPEM,
                http: http, configuration: transport
            ))
        case .fcm(let projectID, let clientEmail, let tokenURI, let privateKeyPEM):
            let account = try FCMServiceAccount(projectID: projectID, clientEmail: clientEmail, privateKey: privateKeyPEM, tokenURI: tokenURI)
            return .fcm(try FCMClient(serviceAccount: account, http: http, configuration: transport, logger: logger))
        }
    }
}
