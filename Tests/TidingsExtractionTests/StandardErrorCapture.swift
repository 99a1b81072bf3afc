import Glibc
import Testing

/// Everything written to file descriptor 2 while `body` runs. Process-wide:
/// output of tests running at the same time lands here too, so callers look
/// for specific text rather than for silence.
enum StandardErrorCapture {
    static func capture(_ body: () throws -> Void) throws -> String {
        var template = Array("/tmp/tidings-stderr-XXXXXX".utf8CString)
        let file = mkstemp(&template)
        try #require(file >= 0)
        defer {
            close(file)
            unlink(template)
        }
        let saved = dup(2)
        try #require(saved >= 0)
        dup2(file, 2)
        defer {
            dup2(saved, 2)
            close(saved)
        }
        try body()
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        lseek(file, 0, SEEK_SET)
        while true {
            let count = read(file, &chunk, chunk.count)
            guard count > 0 else { break }
            output += chunk[..<count]
        }
        return String(decoding: output, as: UTF8.self)
    }
}
