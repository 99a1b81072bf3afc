import Foundation
import Testing
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

/// The real `tidings` executable in a child process, on a database of its
/// own: what the resilience tests kill (SIGKILL, no shutdown code runs)
/// and start again on the same database and port.
final class ProcessHarness: EndToEndHarness {
    let api: TestAPIClient
    let database: PostgresClient
    private let environment: [String: String]
    private var process: Process

    /// Starts the process and waits until it is ready: a fresh database,
    /// the API on a free port, the test admin token, warnings only;
    /// `environment` adds or overrides variables.
    init(environment extra: [String: String] = [:]) async throws {
        let databaseURL = try TestDatabase.create()
        let port = TestPorts.randomListenPort()
        environment = [
            "TIDINGS_DATABASE_URL": databaseURL,
            "TIDINGS_SECRET_KEY": TestSecretKeys.a,
            "TIDINGS_LISTEN": "127.0.0.1:\(port)",
            "TIDINGS_ADMIN_TOKEN": TestAPIClient.adminToken,
            "TIDINGS_ALLOW_PRIVATE_TARGETS": "true",
            "TIDINGS_LOG_LEVEL": "warning",
            "TIDINGS_RESOURCES_DIR": TestSupport.repositoryRoot,
        ].merging(extra) { $1 }
        api = try TestAPIClient(port: port)
        database = TestSupport.databaseClient(databaseURL)
        process = try Self.launch(environment)
        guard try await api.waitUntilReady() else {
            stop()
            throw MockError("tidings did not become ready on port \(port)")
        }
    }

    private static func launch(_ environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.executable)
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: TestSupport.repositoryRoot)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// SIGKILL: no shutdown code runs, leases stay taken until they expire.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGSTOP, then SIGCONT `duration` later: the whole process stalls,
    /// as under a suspended VM.
    func pause(for duration: Duration) async throws {
        Foundation.kill(process.processIdentifier, SIGSTOP)
        defer { Foundation.kill(process.processIdentifier, SIGCONT) }
        try await Task.sleep(for: duration)
    }

    /// A new process after `kill()`, with the same environment; it is not
    /// waited for, so that a test times the recovery from its start.
    func restart() throws {
        kill()
        process = try Self.launch(environment)
    }

    /// SIGTERM and wait, at most 60 s: a process that ignores it is a
    /// failure, and is killed rather than left to hold the test run.
    func stop() {
        if process.isRunning {
            process.terminate()
            if !eventuallyBlocking(timeout: .seconds(60), { !process.isRunning }) {
                Issue.record("tidings did not exit within 60 s of SIGTERM")
                kill()
            }
        }
        api.stop()
        database.stop()
    }
}
