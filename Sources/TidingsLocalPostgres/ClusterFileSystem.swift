import TidingsPostgres

#if canImport(Glibc)
import Glibc
#endif

/// The file-system preparation a local cluster needs: directories owned by
/// the server account and a path it can walk down.
enum ClusterFileSystem {
    /// Creates `path` (and missing parents) if needed, then gives it to the
    /// account with `mode`. An existing symlink or another user's directory
    /// is refused: in a shared place such as /tmp it could redirect the
    /// server's files.
    static func prepareDirectory(_ path: String, mode: mode_t, for account: ServerAccount) throws(PostgresError) {
        try createDirectories(path)
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw PostgresError(code: .localCluster, message: "\(path) is not a directory")
        }
        guard status.st_uid == account.userID || status.st_uid == geteuid() else {
            throw PostgresError(code: .localCluster, message: "\(path) belongs to another user (uid \(status.st_uid))")
        }
        try changeOwner(path, to: account)
        guard chmod(path, mode) == 0 else {
            throw systemError("chmod", path)
        }
    }

    /// Creates an empty file if missing and gives it to the account.
    static func prepareFile(_ path: String, for account: ServerAccount) throws(PostgresError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw systemError("open", path)
        }
        close(descriptor)
        try changeOwner(path, to: account)
    }

    /// Grants "others" traverse permission (o+x) on each directory from "/"
    /// down to `path` that the account could not enter, and returns those
    /// directories so the caller can report them.
    static func grantTraversal(downTo path: String, for account: ServerAccount) throws(PostgresError) -> [String] {
        var granted: [String] = []
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var status = stat()
            guard stat(prefix, &status) == 0 else {
                throw systemError("stat", prefix)
            }
            if account.canTraverse(status) {
                continue
            }
            guard chmod(prefix, (status.st_mode & 0o7777) | S_IXOTH) == 0 else {
                throw systemError("chmod", prefix)
            }
            granted.append(prefix)
        }
        return granted
    }

    private static func createDirectories(_ path: String) throws(PostgresError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw systemError("mkdir", prefix)
            }
        }
    }

    private static func changeOwner(_ path: String, to account: ServerAccount) throws(PostgresError) {
        guard account.switchToUser != nil else { return }
        guard lchown(path, account.userID, account.groupID) == 0 else {
            throw systemError("chown", path)
        }
    }

    private static func systemError(_ operation: String, _ path: String) -> PostgresError {
        PostgresError(code: .localCluster, message: "\(operation) \(path): \(String(cString: strerror(errno)))")
    }
}
