import Foundation
import Testing
import TidingsCrypto
import TidingsDomain
import TidingsHTTPClient
import TidingsIP
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// A fresh database with the schema applied, users and watches made through
/// the real stores, and pollers pointed at loopback origins.
final class PollerTestContext: Sendable {
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    let database: PostgresClient
    let secrets: StoredSecrets
    let watches: WatchStore
    let accounts: AccountStore
    let logSink = CapturingLogSink()

    init() throws {
        let quiet = Logger(label: "test", logLevel: .error, sink: CapturingLogSink())
        var configuration = PostgresConfiguration(connectionString: try TestDatabase.create(prefix: "tidings_poller_test"))
        configuration.maxConnections = 8
        configuration.sessionSettings["tidings.badge_coalesce"] = "0ms"
        database = PostgresClient(configuration: configuration, logger: quiet)
        _ = try MigrationRunner(
            directory: Self.repositoryRoot + "/migrations", functionsDirectory: Self.repositoryRoot + "/schema/functions", client: database,
            logger: quiet
        ).migrate()
        secrets = try StoredSecrets.load(keyring: SecretKeyring(current: try SecretKey(hex: TestSecretKeys.a)), database: database)
        watches = WatchStore(database: database, secrets: secrets)
        accounts = AccountStore(database: database)
    }

    func close() {
        database.stop()
    }

    func user() throws -> UUID {
        try accounts.createUser(name: "user", keyName: nil).0.id
    }

    func watch(
        user: UUID,
        url: String,
        interval: Int = 60,
        extract: ExtractionRule? = nil,
        headers: [String: String] = [:],
        version: (url: String, pointer: String)? = nil,
        versionHeaders: [String: String] = [:]
    ) throws -> Watch {
        let settings = WatchSettings(
            url: try URLNormalizer.normalize(url),
            headers: RequestHeaders(fields: headers),
            intervalSeconds: interval,
            versionCheck: try version.map {
                VersionCheck(url: try URLNormalizer.normalize($0.url), pointer: $0.pointer, headers: RequestHeaders(fields: versionHeaders))
            },
            extract: extract
        )
        return try watches.create(userID: user, settings: settings)
    }

    func reload(_ watch: Watch) throws -> Watch {
        try #require(try watches.watch(userID: watch.userID, id: watch.id))
    }

    /// A poller on loopback; `concurrency` 0 keeps the scheduler off so
    /// checks run only through `check(_:)`.
    func poller(
        concurrency: Int = 0,
        allowPrivateTargets: Bool = true,
        allowedAddresses: Set<IPAddress> = [],
        maxResponseSize: Int = 1 << 20,
        metrics: MetricsRegistry = MetricsRegistry(),
        _ configure: (inout PollerConfiguration) -> Void = { _ in }
    ) throws -> Poller {
        var configuration = PollerConfiguration()
        configuration.concurrency = concurrency
        configuration.idlePollInterval = .milliseconds(50)
        configuration.writeBatchDelay = .milliseconds(5)
        configure(&configuration)
        var client = HTTPClientConfiguration(
            timeout: .seconds(5), maxResponseSize: maxResponseSize, allowPrivateTargets: allowPrivateTargets)
        client.allowedAddresses = allowedAddresses
        let logger = Logger(label: "poller", logLevel: .info, sink: logSink)
        let poller = Poller(
            configuration: configuration,
            parts: try PollerParts.make(
                configuration: configuration, httpClientConfiguration: client, database: database.configuration, logger: logger
            ),
            secrets: secrets,
            logger: logger,
            metrics: metrics
        )
        poller.start()
        return poller
    }

    /// `Poller.checkNow` blocks its thread; run it on one of its own so the
    /// check's task keeps the cooperative pool.
    func check(_ watch: Watch, with poller: Poller) async throws -> WatchCheckResult {
        let results = try await onThread { try poller.checkNow(targetID: watch.targetID) }
        let byWatch = try #require(results, "the target was leased by someone else")
        return try #require(byWatch[watch.id], "no result for the watch")
    }

    func onThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    func events(of user: UUID, type: String) throws -> [String] {
        try database.query("SELECT data::text AS data FROM events WHERE user_id = \(user) AND type = \(type) ORDER BY created_at")
            .map { try $0.decode("data", as: String.self) }
    }

    func changeCount(of watch: Watch) throws -> Int {
        try database.query("SELECT count(*)::integer AS n FROM changes WHERE watch_id = \(watch.id)")[0].decode("n")
    }

    func change(of watch: Watch) throws -> (diff: String, snapshot: String)? {
        try database.query(
            """
            SELECT diff, snapshot FROM changes WHERE watch_id = \(watch.id) ORDER BY position DESC LIMIT 1
            """
        ).first.map { (try $0.decode("diff"), try $0.decode("snapshot")) }
    }
}
