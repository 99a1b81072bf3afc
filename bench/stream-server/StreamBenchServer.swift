import Dispatch
import TidingsHTTPServer
import TidingsObservability
import TidingsSynchronization
#if canImport(Glibc)
import Glibc
#endif

/// Kept out of main.swift, whose top-level code is main-actor isolated:
/// the handler and heartbeat run on server and timer threads.
///
/// Environment: BENCH_STREAM_PORT (18090), BENCH_STREAM_HEARTBEAT seconds
/// (15), BENCH_STREAM_LIMIT connections (12000), BENCH_STREAM_POLLING
/// (2) and BENCH_STREAM_HANDLERS (64) threads, BENCH_STREAM_MAX_HEADER_BYTES
/// (32768: libmicrohttpd's per-connection memory pool is this plus 8 KiB).
enum StreamBenchServer {
    static func run() {
        let environment = Environment()
        let limit = environment.integer("BENCH_STREAM_LIMIT", 12_000)
        var configuration = HTTPServerConfiguration(
            port: environment.integer("BENCH_STREAM_PORT", 18_090),
            threading: .suspending(
                pollingThreads: environment.integer("BENCH_STREAM_POLLING", 2),
                handlerThreads: environment.integer("BENCH_STREAM_HANDLERS", 64)
            ),
            connectionLimit: limit,
            connectionsPerClient: limit
        )
        let gracePeriod = Duration.seconds(2)
        configuration.shutdownGracePeriod = gracePeriod
        configuration.maxHeaderBytes = environment.integer("BENCH_STREAM_MAX_HEADER_BYTES", configuration.maxHeaderBytes)
        let open = AdaptiveMutex<[ObjectIdentifier: HTTPResponseStream]>([:])
        var router = Router()
        router.get("/events") { _, _ in
            let stream = HTTPResponseStream()
            open.withLock { $0[ObjectIdentifier(stream)] = stream }
            stream.onClose { _ in _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) } }
            stream.send(Array(": open\n\n".utf8))
            return .eventStream(stream)
        }
        router.get("/healthz") { _, _ in .text("ok") }
        // Access lines only for streams that end: an idle run writes none.
        let server = HTTPServer(
            configuration: configuration,
            responder: router,
            logger: Logger(label: "stream-bench", logLevel: .warning),
            metrics: MetricsRegistry()
        )
        do {
            try server.start()
        } catch {
            print("could not start: \(error)")
            exit(1)
        }
        let heartbeat = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "heartbeat"))
        let interval = environment.integer("BENCH_STREAM_HEARTBEAT", 15)
        heartbeat.schedule(deadline: .now() + .seconds(interval), repeating: .seconds(interval))
        heartbeat.setEventHandler {
            let streams = open.withLock { Array($0.values) }
            for stream in streams { stream.send(Array(": heartbeat\n\n".utf8)) }
        }
        heartbeat.resume()
        let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        signal(SIGTERM, SIG_IGN)
        terminate.setEventHandler {
            heartbeat.cancel()
            server.stop(deadline: .now + gracePeriod)
            exit(0)
        }
        terminate.resume()
        print("listening on \(server.boundPort)")
        dispatchMain()
    }

    private struct Environment {
        func integer(_ name: String, _ fallback: Int) -> Int {
            getenv(name).flatMap { Int(String(cString: $0)) } ?? fallback
        }
    }
}
