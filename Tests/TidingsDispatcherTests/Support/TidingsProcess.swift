import Foundation

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

    /// SIGTERM and wait.
    func terminate() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
