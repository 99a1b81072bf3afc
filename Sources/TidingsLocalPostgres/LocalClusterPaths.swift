import FoundationEssentials
import TidingsCrypto

/// Where a local cluster keeps its files, derived from its directory.
struct LocalClusterPaths: Sendable, Equatable {
    /// A unix socket path must fit `sun_path`: 108 bytes with the final NUL.
    static let maximumSocketPathLength = 107
    static let socketFileName = ".s.PGSQL.5432"

    /// The cluster's directory, absolute and without a trailing slash.
    let root: String
    let dataDirectory: String
    let logFile: String
    let socketDirectory: String
    /// True when the socket directory is the /tmp fallback for a long root.
    let socketDirectoryIsFallback: Bool

    init(directory: String, currentDirectory: String = FileManager.default.currentDirectoryPath) {
        var root = directory.hasPrefix("/") ? directory : currentDirectory + "/" + directory
        while root.count > 1, root.hasSuffix("/") {
            root.removeLast()
        }
        self.root = root
        dataDirectory = root + "/postgres"
        logFile = root + "/postgres.log"
        let preferred = root + "/run"
        if (preferred + "/" + Self.socketFileName).utf8.count <= Self.maximumSocketPathLength {
            socketDirectory = preferred
            socketDirectoryIsFallback = false
        } else {
            socketDirectory = "/tmp/tidings-pg-" + SHA256.hash(root).hex.prefix(16)
            socketDirectoryIsFallback = true
        }
    }
}
