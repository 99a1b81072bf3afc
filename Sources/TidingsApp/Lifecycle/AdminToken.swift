import Foundation
import TidingsCrypto
import TidingsObservability

/// The admin token: from `TIDINGS_ADMIN_TOKEN`, or, when Tidings runs its
/// own PostgreSQL (the `make run` laptop mode) and none is configured, one
/// generated at first start, kept in the data folder (mode 0600) and printed
/// once on stderr, never into the log stream.
enum AdminToken {
    static let fileName = "admin-token"

    static func resolve(configuration: Configuration, logger: Logger) throws -> String? {
        if let configured = configuration.adminToken {
            return configured
        }
        guard configuration.databaseURL == nil else {
            logger.warning("TIDINGS_ADMIN_TOKEN is not set: the admin API is disabled")
            return nil
        }
        let file = DataFolderFile(named: fileName, configuration: configuration)
        if let stored = (try? file.read())??.trimmingWhitespace(), stored.count >= 32 {
            logger.notice("admin token loaded", metadata: ["admin_token.file": file.path])
            return stored
        }
        let token = "tdga_" + SecureRandom.token(byteCount: 32)
        try file.create(token + "\n")
        FileHandle.standardError.write(
            Data(
                """

                Tidings admin token (shown once, kept in \(file.path)):
                  \(token)

                """.utf8))
        logger.notice("admin token generated", metadata: ["admin_token.file": file.path])
        return token
    }
}
