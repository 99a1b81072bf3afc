import Foundation

/// What the kernel says about the calling thread (Linux /proc).
enum ThreadFacts {
    /// The thread's kernel id, as in /proc/self/task.
    static func id() -> String {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return String(link.split(separator: "/").last ?? "")
    }

    /// The thread's nice value (field 19 of its stat line).
    static func nice() -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // Fields from the third (state) on follow the parenthesized name.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 16 ? Int(fields[16]) : nil
    }

    static func isRunning(_ id: String) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/self/task/\(id)")
    }
}
