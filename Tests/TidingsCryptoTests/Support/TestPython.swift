import Foundation
import Testing

/// The Python of the push tests (`TIDINGS_TEST_PUSH_PYTHON`, a venv that
/// scripts/run-tests.sh makes with PyJWT and cryptography, pinned), to
/// check tokens and bodies with libraries other than ours. Without it the
/// tests that need it are skipped, not passed.
enum TestPython {
    static let path = ProcessInfo.processInfo.environment["TIDINGS_TEST_PUSH_PYTHON"]
    static let isAvailable = path != nil

    /// Runs `script` with `arguments`; its standard output, or nil when it
    /// exits non-zero (its standard error is recorded as an issue).
    static func run(_ script: String, arguments: [String]) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path))
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Issue.record("python: \(problems)")
            return nil
        }
        return text
    }
}
