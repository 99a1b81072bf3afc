#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where finished log lines go. Each call receives one complete line without
/// the trailing newline.
public protocol LogSink: Sendable {
    func write(line: String)
}

/// Writes each line to standard output with a single `write(2)`, so lines from
/// different threads never interleave.
public struct StandardOutputLogSink: LogSink {
    public init() {}

    public func write(line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// Keeps lines in memory; tests read them back to check what was logged.
public final class CapturingLogSink: LogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(line: String) {
        storage.withLock { $0.append(line) }
    }

    public var lines: [String] {
        storage.withLock { $0 }
    }
}
