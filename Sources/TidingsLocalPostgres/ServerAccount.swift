import TidingsPostgres

#if canImport(Glibc)
import Glibc
#endif

/// The system account the PostgreSQL server runs as. initdb and postgres
/// refuse to run as root, so a root process hands them to `postgres`;
/// anyone else runs them as themselves.
struct ServerAccount: Sendable, Equatable {
    static let systemUserName = "postgres"

    let userID: uid_t
    let groupID: gid_t
    /// The user to switch to with runuser, or nil to run as the caller.
    let switchToUser: String?

    static func forCurrentProcess() throws(PostgresError) -> ServerAccount {
        guard geteuid() == 0 else {
            return ServerAccount(userID: geteuid(), groupID: getegid(), switchToUser: nil)
        }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwnam_r(systemUserName, &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil else {
            throw PostgresError(
                code: .localCluster,
                message: "running as root needs the '\(systemUserName)' system user to run PostgreSQL, and it does not exist")
        }
        return ServerAccount(userID: entry.pw_uid, groupID: entry.pw_gid, switchToUser: systemUserName)
    }

    /// Whether this account may enter the directory described by `status`.
    func canTraverse(_ status: stat) -> Bool {
        if status.st_uid == userID {
            return status.st_mode & S_IXUSR != 0
        }
        if status.st_gid == groupID {
            return status.st_mode & S_IXGRP != 0
        }
        return status.st_mode & S_IXOTH != 0
    }
}
