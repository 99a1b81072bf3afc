import FoundationEssentials
import TidingsPostgres

/// The newest PostgreSQL server installed the Debian way, under
/// /usr/lib/postgresql/VERSION/bin.
struct PostgresServerBinaries: Sendable {
    let directory: String

    var initdb: String {
        directory + "/initdb"
    }

    var pgCtl: String {
        directory + "/pg_ctl"
    }

    static func newest(under base: String = "/usr/lib/postgresql") throws(PostgresError) -> PostgresServerBinaries {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [])
            .compactMap { name in Int(name.prefix { $0.isNumber }).map { (number: $0, name: name) } }
            .filter { FileManager.default.isExecutableFile(atPath: "\(base)/\($0.name)/bin/initdb") }
            .sorted { $0.number < $1.number }
        guard let newest = versions.last else {
            throw PostgresError(
                code: .localCluster, message: "no PostgreSQL server binaries under \(base)/*/bin (install the postgresql package)")
        }
        return PostgresServerBinaries(directory: "\(base)/\(newest.name)/bin")
    }
}
