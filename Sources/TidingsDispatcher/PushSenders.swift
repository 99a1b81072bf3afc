import FoundationEssentials
import TidingsDomain
import TidingsHTTPClient
import TidingsObservability
import TidingsPush
import TidingsSynchronization

/// One client per push app, built from its opened credentials on first use
/// and rebuilt when the app changes (its `updated_at` moves: a new key, a
/// new environment). Each app has an `HTTPClient` of its own, so one
/// connection per push app carries that app's streams: APNs ties a
/// connection to the provider token sent on it, and two apps' tokens
/// taking turns on one connection would be refused as too many token
/// updates (decision 0036). Clients keep their provider or access tokens
/// between pushes; one unused for `idleLifetime` is let go (its connection
/// and driver thread with it) and built again when needed.
final class PushSenders: Sendable {
    enum Sender: Sendable {
        case apns(APNsClient)
        case fcm(FCMClient)
        case webPush(WebPushClient)
    }

    /// The app's row no longer exists (deleted while its push was claimed).
    struct MissingApp: Error, CustomStringConvertible {
        var description: String { "the push app was deleted" }
    }

    /// After shutdown no client is built.
    struct ShutDown: Error, CustomStringConvertible {
        var description: String { "the push dispatcher is shutting down" }
    }

    private struct Entry {
        let updatedAt: Date
        let sender: Sender
        let http: HTTPClient
        var lastUsed: ContinuousClock.Instant
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        var nextSweep: ContinuousClock.Instant
        var isShutDown = false
    }

    /// How long a client may go unused before it is let go.
    static let idleLifetime: Duration = .seconds(600)

    private let transport: PushTransportConfiguration
    private let logger: Logger
    private let state: AdaptiveMutex<State>

    init(transport: PushTransportConfiguration, logger: Logger) {
        self.transport = transport
        self.logger = logger
        self.state = AdaptiveMutex(State(nextSweep: .now + Self.idleLifetime))
    }

    /// The sender of the push's app. Hold it until the push is answered: a
    /// client replaced or let go meanwhile stays open while it is held.
    func sender(for push: ClaimedPush, apps: PushAppStore) throws -> Sender {
        let now = ContinuousClock.now
        // Entries taken out under the lock are returned and released after
        // it: a client's last release joins its driver thread.
        let (cached, _) = try state.withLock { state throws -> (Sender?, [Entry]) in
            guard !state.isShutDown else { throw ShutDown() }
            let idle = Self.sweep(&state, now: now)
            guard var entry = state.entries[push.pushAppID], entry.updatedAt >= push.pushAppUpdatedAt else { return (nil, idle) }
            entry.lastUsed = now
            state.entries[push.pushAppID] = entry
            return (entry.sender, idle)
        }
        if let cached { return cached }
        guard let (app, credentials) = try apps.credentials(of: push.pushAppID) else {
            _ = state.withLock { $0.entries.removeValue(forKey: push.pushAppID) }
            throw MissingApp()
        }
        // Web Push endpoints are tenants' URLs: that client keeps the SSRF
        // guard on; the others reach only the operator's push services.
        let http = try HTTPClient(
            configuration: app.platform == .webpush ? transport.webPushHTTPClientConfiguration : transport.httpClientConfiguration,
            logger: logger
        )
        let sender: Sender
        do {
            sender = try Self.make(app: app, credentials: credentials, transport: transport, http: http, logger: logger)
        } catch {
            http.stop()
            throw error
        }
        let (_, refused) = state.withLock { state -> (Entry?, Bool) in
            guard !state.isShutDown else { return (nil, true) }
            let entry = Entry(updatedAt: app.updatedAt, sender: sender, http: http, lastUsed: now)
            return (state.entries.updateValue(entry, forKey: app.id), false)
        }
        if refused {
            http.stop()
            throw ShutDown()
        }
        return sender
    }

    /// Fails what is still in flight with `.shutdown` and closes every
    /// connection; no client is built after it.
    func stop() {
        let entries = state.withLock { state -> [Entry] in
            state.isShutDown = true
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for entry in entries { entry.http.stop() }
    }

    /// Takes out the entries unused for `idleLifetime`, at most once per
    /// that lifetime.
    private static func sweep(_ state: inout State, now: ContinuousClock.Instant) -> [Entry] {
        guard now >= state.nextSweep else { return [] }
        state.nextSweep = now + idleLifetime
        let idle = state.entries.filter { now - $0.value.lastUsed >= idleLifetime }
        for id in idle.keys { state.entries.removeValue(forKey: id) }
        return Array(idle.values)
    }

    private static func make(
        app: PushApp, credentials: PushAppCredentials, transport: PushTransportConfiguration, http: HTTPClient, logger: Logger
    ) throws -> Sender {
        switch credentials {
        case .apns(let environment, let teamID, let keyID, let privateKeyPEM):
            return .apns(
                try APNsClient(
                    appID: app.appID, environment: environment, teamID: teamID, keyID: keyID, privateKey: privateKeyPEM,
                    http: http, configuration: transport
                ))
        case .fcm(let projectID, let clientEmail, let tokenURI, let privateKeyPEM):
            let account = try FCMServiceAccount(
                projectID: projectID, clientEmail: clientEmail, privateKey: privateKeyPEM, tokenURI: tokenURI)
            return .fcm(try FCMClient(serviceAccount: account, http: http, configuration: transport, logger: logger))
        case .webPush(let subject, let privateKeyPEM):
            return .webPush(try WebPushClient(privateKey: privateKeyPEM, subject: subject, http: http, configuration: transport))
        }
    }
}
