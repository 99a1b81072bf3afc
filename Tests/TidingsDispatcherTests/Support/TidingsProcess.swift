import Foundation
import Testing
import TidingsTestSupport

/// The real `tidings` executable in a child process.
struct TidingsProcess {
    private let process: Process

    /// What a killed-and-restarted process of the resilience tests runs
    /// with: `databaseURL`, the API on `port`, the test admin token,
    /// warnings only; `extra` adds or overrides.
    static func environment(databaseURL: String, port: Int, extra: [String: String] = [:]) -> [String: String] {
        [
            "TIDINGS_DATABASE_URL": databaseURL,
            "TIDINGS_SECRET_KEY": TestSecretKeys.a,
            "TIDINGS_LISTEN": "127.0.0.1:\(port)",
            "TIDINGS_ADMIN_TOKEN": DispatcherHarness.adminToken,
            "TIDINGS_ALLOW_PRIVATE_TARGETS": "true",
            "TIDINGS_LOG_LEVEL": "warning",
            "TIDINGS_RESOURCES_DIR": TestSupport.repositoryRoot,
        ].merging(extra) { $1 }
    }

    init(environment: [String: String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.executable)
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: TestSupport.repositoryRoot)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// SIGKILL: no shutdown code runs, leases stay taken until they expire.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM and wait, at most 60 s: a process that ignores it is a
    /// failure, and is killed rather than left to hold the test run.
    func terminate() {
        guard process.isRunning else { return }
        process.terminate()
        if !eventuallyBlocking(timeout: .seconds(60), { !process.isRunning }) {
            Issue.record("tidings did not exit within 60 s of SIGTERM")
            kill()
        }
    }
}
