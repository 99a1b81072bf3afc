import Foundation
import Testing
import TidingsHTTPClient
import TidingsObservability
import TidingsSynchronization
import TidingsTestSupport

/// The `tidings` binary as an operator meets it: help, bad configuration,
/// and a clean exit on SIGTERM.
@Suite(.serialized) struct ExecutableTests {
    static let executable: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("tidings").path

    private func launch(_ arguments: [String], environment: [String: String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    @Test func helpListsTheEnvironment() throws {
        let (process, output, _) = try launch(["--help"], environment: [:])
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("TIDINGS_DATABASE_URL"))
        #expect(text.contains("TIDINGS_ALLOW_PRIVATE_TARGETS"))
    }

    /// Decision 0033: the process allocates through jemalloc, which prints
    /// its statistics at exit when MALLOC_CONF asks for them. Under a
    /// sanitizer the sanitizer's allocator takes its place by design.
    @Test(
        .disabled(
            if: ProcessInfo.processInfo.environment["TIDINGS_TEST_SANITIZER"] != nil,
            "a sanitizer build allocates through the sanitizer"))
    func allocatesThroughJemalloc() throws {
        let (process, _, errors) = try launch(["--version"], environment: ["MALLOC_CONF": "stats_print:true"])
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("Begin jemalloc statistics"))
    }

    @Test func invalidConfigurationStopsStartUpNamingTheVariable() throws {
        let (process, _, errors) = try launch([], environment: ["TIDINGS_HTTP_IDLE_TIMEOUT": "soon"])
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 78)
        #expect(text.contains("TIDINGS_HTTP_IDLE_TIMEOUT"))
    }

    @Test func aBadVAPIDKeyStopsStartUpNamingTheVariable() throws {
        let (process, _, errors) = try launch(
            [],
            environment: [
                "TIDINGS_VAPID_PRIVATE_KEY": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                "TIDINGS_VAPID_SUBJECT": "mailto:ops@example.com",
            ])
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 78)
        #expect(text.contains("TIDINGS_VAPID_PRIVATE_KEY") && !text.contains("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), "\(text)")
    }

    @Test func servesAndExitsCleanlyOnSIGTERM() async throws {
        let port = TestPorts.randomListenPort()
        let (process, output, errors) = try launch(
            [],
            environment: [
                "TIDINGS_DATABASE_URL": try TestDatabase.create(),
                "TIDINGS_SECRET_KEY": TestSecretKeys.a,
                "TIDINGS_LISTEN": "127.0.0.1:\(port)",
            ])
        let client = try HTTPClient(
            configuration: .init(allowPrivateTargets: true), logger: Logger(label: "test", sink: CapturingLogSink()))
        defer { client.stop() }

        // The child migrates an empty database first.
        #expect(
            try await eventually(every: .milliseconds(100)) {
                (try? await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/readyz")))?.status == 200
            })
        // Standard error is read meanwhile, so a long sanitizer report
        // cannot fill the pipe and hold the process, and it is shown if the
        // exit status is not 0 (ThreadSanitizer's is 66).
        let errorText = AdaptiveMutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        Thread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorText.withLock { $0 = data }
            errorsRead.signal()
        }.start()
        process.terminate()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        errorsRead.wait()
        #expect(process.terminationStatus == 0, "standard error: \(String(decoding: errorText.withLock { $0 }, as: UTF8.self))")
        #expect(log.contains("\"signal\":\"SIGTERM\""))
        #expect(log.contains("shutdown complete"))
        for line in log.split(separator: "\n") {
            #expect(line.hasPrefix("{\"ts\":"), "every log line is JSON: \(line)")
        }
    }

    /// A SIGTERM while Tidings is still starting is kept, not lost: once up,
    /// it shuts down in order. (It was discarded when the parent had the
    /// signal blocked, as a test runner's threads do, and the child then
    /// served until killed.)
    @Test func aSIGTERMDuringStartupShutsDownOnceUp() throws {
        let (process, output, errors) = try launch(
            [],
            environment: [
                "TIDINGS_DATABASE_URL": try TestDatabase.create(),
                "TIDINGS_SECRET_KEY": TestSecretKeys.a,
                "TIDINGS_LISTEN": "127.0.0.1:\(TestPorts.randomListenPort())",
            ])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // The first log line comes from startup, after the signals are taken.
        let reader = output.fileHandleForReading
        var log = Data()
        while !log.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            log.append(chunk)
        }
        #expect(!log.isEmpty, "standard error: \(String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self))")
        process.terminate()
        #expect(eventuallyBlocking(timeout: .seconds(60)) { !process.isRunning }, "still serving 60 s after a SIGTERM sent during startup")
        guard !process.isRunning else { return }
        log.append(reader.readDataToEndOfFile())
        let text = String(decoding: log, as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(text.contains("\"signal\":\"SIGTERM\""), "\(text)")
        #expect(text.contains("shutdown complete"))
    }
}
