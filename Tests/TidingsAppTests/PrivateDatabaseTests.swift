import Foundation
import Testing
import TidingsApp
import TidingsCrypto
import TidingsDomain
import TidingsHTTPClient
import TidingsLocalPostgres
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// `make run` without TIDINGS_DATABASE_URL: Tidings owns a PostgreSQL
/// cluster in its data folder, stops it on shutdown and reuses it next time.
@Suite struct PrivateDatabaseTests {
    @Test func startsStopsAndReusesThePrivateCluster() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tidings-private-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let configuration = TestEnvironment.configuration(databaseURL: nil, dataDirectory: dataDirectory)
        let logger = Logger(label: "tidings", logLevel: .warning, sink: CapturingLogSink())
        let client = try HTTPClient(configuration: .init(allowPrivateTargets: true), logger: logger)
        defer { client.stop() }

        let first = try Application.start(configuration: configuration, logger: logger)
        // No TIDINGS_SECRET_KEY: one is generated beside the cluster, for
        // this user only, and kept for the next start.
        let keyFile = dataDirectory + "/secret-key"
        let keyText = try String(contentsOfFile: keyFile, encoding: .utf8)
        #expect(try SecretKey(hex: keyText).id == first.secrets.keyring.current.id)
        let permissions = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let ready = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(first.port)/readyz"))
        #expect(ready.status == 200)
        try first.database.withConnection { connection in
            try connection.execute("INSERT INTO users (name) VALUES (\("survives restarts"))")
        }
        let pidFile = try #require(
            FileManager.default.enumerator(atPath: dataDirectory)?
                .compactMap { $0 as? String }
                .first { $0.hasSuffix("postmaster.pid") }
                .map { dataDirectory + "/" + $0 },
            "the private cluster keeps its files inside the data directory"
        )
        #expect(FileManager.default.fileExists(atPath: pidFile))

        // PostgreSQL restarts under a running Tidings: the pooled connections
        // are dead, and the next request must still succeed.
        try LocalPostgresCluster(directory: dataDirectory, logger: logger).restart()
        // Past the quarter second a readiness reading answers for (a cache
        // window, not a condition): this probe queries.
        try await Task.sleep(for: .milliseconds(600))
        let afterRestart = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(first.port)/readyz"))
        #expect(afterRestart.status == 200)

        first.stop()
        #expect(!FileManager.default.fileExists(atPath: pidFile), "PostgreSQL is stopped on shutdown")

        let second = try Application.start(configuration: configuration, logger: logger)
        defer { second.stop() }
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == keyText)
        #expect(second.secrets.keyring.current.id == first.secrets.keyring.current.id, "the stored key is reused")
        let names = try second.database.withConnection { connection in
            try connection.query("SELECT name FROM users").map { try $0.decode("name", as: String.self) }
        }
        #expect(names == ["survives restarts"])
    }
}
