import Foundation
import Testing

/// The real `tidings` executable in a child process.
struct TidingsProcess {
    private let process: Process

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
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning && ContinuousClock.now < deadline {
            usleep(20_000)
        }
        if process.isRunning {
            Issue.record("tidings did not exit within 60 s of SIGTERM")
            kill()
        }
    }
}
