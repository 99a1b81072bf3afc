import Foundation
import TidingsLocalPostgres
import TidingsTestSupport

/// A PostgreSQL server of the test's own (a cluster in a fresh /tmp
/// directory), which the resilience tests stop and start again under a
/// running Tidings; the shared test server must not go down for them.
struct StoppablePostgres {
    private let directory: String
    private let cluster: LocalPostgresCluster

    /// Creates the cluster and starts it.
    init() throws {
        directory = "/tmp/tidings-outage-pg-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        cluster = LocalPostgresCluster(directory: directory, logger: TestSupport.quietLogger)
        try cluster.start()
    }

    var connectionString: String {
        cluster.connectionString
    }

    /// Fast shutdown: every open session ends.
    func stop() throws {
        try cluster.stop()
    }

    func start() throws {
        try cluster.start()
    }

    /// Stops the server and deletes its files.
    func remove() {
        try? cluster.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
