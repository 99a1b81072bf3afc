import Foundation

/// Compresses with the system gzip tool (no zlib module is available to Swift here).
enum Gzip {
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-gzip-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestSocketError(description: "gzip exited with \(process.terminationStatus)")
        }
        return Array(compressed)
    }
}
