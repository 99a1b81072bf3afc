import FoundationEssentials
import TidingsPostgres

#if canImport(Glibc)
import Glibc
#endif

/// Runs a PostgreSQL server program (initdb, pg_ctl) to completion as the
/// server account, keeping what it printed for error messages.
///
/// Spawned with posix_spawn rather than Foundation's `Process`: `pg_ctl
/// start` leaves the server running as a daemon, and the daemon inherits
/// every descriptor its parent had. `Process` watches for the child's exit
/// through a socket the child inherits, so it would wait for the server's
/// exit instead (and a daemon holding, say, the HTTP listening socket would
/// keep it open after Tidings exits). Here the child gets only stdin
/// (/dev/null) and stdout/stderr (a temporary file), default signal
/// handling, and "/" as its working directory, since the server account may
/// not be able to enter the caller's.
struct ServerCommand: Sendable {
    struct Result: Sendable {
        let exitStatus: Int32
        let output: String
    }

    private static let runuserCandidates = ["/usr/sbin/runuser", "/sbin/runuser"]
    private static let env = "/usr/bin/env"

    let account: ServerAccount

    /// Runs the program and returns its exit status and output.
    func run(_ program: String, _ arguments: [String]) throws(PostgresError) -> Result {
        var argv = [Self.env, "--chdir=/"]
        if let user = account.switchToUser {
            guard let runuser = Self.runuserCandidates.first(where: { access($0, X_OK) == 0 }) else {
                throw PostgresError(code: .localCluster, message: "runuser (util-linux) is needed to run PostgreSQL as \(user)")
            }
            argv += [runuser, "-u", user, "--"]
        }
        argv += [program] + arguments
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }

        var outputTemplate = Array("/tmp/tidings-postgres-command-XXXXXX".utf8CString)
        let output = mkstemp(&outputTemplate)
        guard output >= 0 else {
            throw failure("mkstemp", errno)
        }
        defer {
            close(output)
            unlink(outputTemplate)
        }

        let pid = try spawn(argv: argv, environment: environment, output: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw failure("waitpid", errno) }
        }
        return Result(
            exitStatus: Self.exitStatus(status), output: String(Self.readAll(output).reversed().drop { $0.isWhitespace }.reversed()))
    }

    /// Runs the program and throws `.localCluster` with its output unless it exits 0.
    @discardableResult
    func runChecked(_ program: String, _ arguments: [String]) throws(PostgresError) -> String {
        let result = try run(program, arguments)
        guard result.exitStatus == 0 else {
            let name = program.split(separator: "/").last.map(String.init) ?? program
            throw PostgresError(
                code: .localCluster, message: "\(name) \(arguments.first ?? "") exited with status \(result.exitStatus): \(result.output)")
        }
        return result.output
    }

    private func spawn(argv: [String], environment: [String], output: Int32) throws(PostgresError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        // glibc skips descriptors that were closed meanwhile; ones opened
        // after this listing are missed unless close-on-exec, as libpq's are.
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var pid: pid_t = 0
        let status = Self.withCStringArray(argv) { argvPointers in
            Self.withCStringArray(environment) { environmentPointers in
                posix_spawn(&pid, argv[0], &actions, &attributes, argvPointers, environmentPointers)
            }
        }
        guard status == 0 else {
            throw failure("posix_spawn \(argv.joined(separator: " "))", status)
        }
        return pid
    }

    /// A NULL-terminated array of C strings, valid only inside `body`.
    private static func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    private static func readAll(_ descriptor: Int32) -> String {
        lseek(descriptor, 0, SEEK_SET)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The exit code, or 128 + the signal number for a killed child, as shells report it.
    private static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private func failure(_ operation: String, _ code: Int32) -> PostgresError {
        PostgresError(code: .localCluster, message: "\(operation): \(String(cString: strerror(code)))")
    }
}
