import TidingsApp
import TidingsCrypto
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// A running Tidings (API and engines) in this process, on a fresh
/// database unless given one; `configure` adjusts its configuration.
final class DispatcherHarness: EndToEndHarness, Sendable {
    let application: Application
    let api: TestAPIClient
    let logSink = CapturingLogSink()

    init(databaseURL: String? = nil, configure: (inout Configuration) -> Void = { _ in }) throws {
        var configuration = Configuration()
        configuration.databaseURL = try databaseURL ?? TestDatabase.create()
        configuration.secretKey = try SecretKey(hex: TestSecretKeys.a)
        configuration.listenHost = "127.0.0.1"
        configuration.listenPort = 0
        configuration.resourcesDirectory = TestSupport.repositoryRoot
        configuration.shutdownTimeout = .seconds(2)
        configuration.adminToken = Self.adminToken
        configuration.allowPrivateTargets = true
        configuration.webhookTimeout = .seconds(5)
        configure(&configuration)
        application = try Application.start(configuration: configuration, logger: Logger(label: "tidings", logLevel: .info, sink: logSink))
        api = try TestAPIClient(port: application.port)
    }

    func stop() {
        api.stop()
        application.stop()
    }

    var database: PostgresClient {
        application.database
    }
}
