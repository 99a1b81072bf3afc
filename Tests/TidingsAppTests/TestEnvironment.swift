import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsObservability
import TidingsPostgres
import TidingsTestSupport

/// Locations and databases the end-to-end tests share.
enum TestEnvironment {
    /// The repository root, where `migrations/`, `schema/functions/`, `openapi.yaml` and `README.md` live.
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// A configuration for an application on an ephemeral loopback port.
    static func configuration(databaseURL: String?, dataDirectory: String? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.databaseURL = databaseURL
        // Private-database tests generate their own key, as `make run` does.
        if databaseURL != nil { configuration.secretKey = try! SecretKey(hex: TestSecretKeys.a) }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        configuration.listenHost = "127.0.0.1"
        configuration.listenPort = 0
        configuration.resourcesDirectory = repositoryRoot
        configuration.shutdownTimeout = .seconds(2)
        // API tests create watches of hosts that must not be fetched; the
        // poller's own tests and the check endpoint run checks explicitly.
        configuration.pollConcurrency = 0
        // Every test client is 127.0.0.1; the concurrency tests stand for
        // many clients at once.
        configuration.httpConnectionsPerClient = configuration.httpConnectionLimit
        return configuration
    }
}
