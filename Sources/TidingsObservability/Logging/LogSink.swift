import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where finished log lines go. Each call receives one complete line without
/// the trailing newline, and the level it was logged at.
package protocol LogSink: Sendable {
    func write(line: String, level: LogLevel)
}

/// Standard output, buffered: lines below `warning` (the access log above
/// all) are collected and written at most every 50 ms or per 64 KiB, which
/// saves a system call per request; `warning` and above are written at once,
/// together with anything buffered before them, so the lines that explain a
/// failure are never held back. Call `flush()` before the process exits.
///
/// The first line held back schedules a flush on a `DeadlineWorker`: a
/// write(2) to a full pipe must not hold up every other deadline in the
/// process.
package final class StandardOutputLogSink: LogSink {
    package static let shared = StandardOutputLogSink()

    private static let flushThreshold = 64 * 1024
    private static let flushInterval: Duration = .milliseconds(50)

    private struct State {
        var buffer: [UInt8] = []
        var flushScheduled = false
    }

    /// Taken for every line (each request's access-log line): see AdaptiveMutex.
    private let state = AdaptiveMutex(State())
    /// Serializes the write(2) calls so flushed batches stay in order.
    private let output = AdaptiveMutex(())
    /// Writes what a scheduled flush finds; lives as long as the process.
    private let writer = DeadlineWorker(name: "tidings.log") { StandardOutputLogSink.shared.flush() }

    private init() {}

    package func write(line: String, level: LogLevel) {
        let pending: [UInt8]? = state.withLock { state in
            state.buffer.append(contentsOf: line.utf8)
            state.buffer.append(UInt8(ascii: "\n"))
            guard level >= .warning || state.buffer.count >= Self.flushThreshold else {
                if !state.flushScheduled {
                    state.flushScheduled = true
                    writer.schedule(at: .now + Self.flushInterval)
                }
                return nil
            }
            return take(&state)
        }
        if let pending { emit(pending) }
    }

    /// Writes everything buffered so far.
    package func flush() {
        let pending = state.withLock { take(&$0) }
        emit(pending)
    }

    private func take(_ state: inout State) -> [UInt8] {
        defer {
            state.buffer.removeAll(keepingCapacity: true)
            state.flushScheduled = false
        }
        return state.buffer
    }

    private func emit(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}

/// Keeps lines in memory; tests read them back to check what was logged.
package final class CapturingLogSink: LogSink {
    private let storage = AdaptiveMutex<[String]>([])

    package init() {}

    package func write(line: String, level: LogLevel) {
        storage.withLock { $0.append(line) }
    }

    package var lines: [String] {
        storage.withLock { $0 }
    }
}
