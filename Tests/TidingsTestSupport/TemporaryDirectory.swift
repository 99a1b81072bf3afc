import Foundation

/// A fresh directory under /tmp, removed after `body`.
package enum TemporaryDirectory {
    package static func with<T>(prefix: String, _ body: (String) throws -> T) throws -> T {
        let path = "/tmp/\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    package static func write(_ contents: String, to path: String) throws {
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    }
}
