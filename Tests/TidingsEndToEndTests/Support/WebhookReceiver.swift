import Foundation
import TidingsHTTPServer
import TidingsObservability
import TidingsSynchronization

/// A real HTTP server that plays webhook receivers: every path is one
/// receiver, answering as `reply` decides (status, headers, delay) and
/// recording every request it got.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        let path: String
        let webhookID: String
        let timestamp: String
        let signature: String
        let contentType: String
        let userAgent: String
        let body: [UInt8]
        let receivedAt: Date

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
    }

    struct Reply: Sendable {
        var status = 204
        var headers: [(String, String)] = []
        var body = ""
        var delay: Duration = .zero
    }

    /// Decides the answer from the path and how many requests that path
    /// had before this one (0 for the first).
    typealias Behaviour = @Sendable (_ path: String, _ previous: Int) -> Reply

    struct State {
        var received: [Received] = []
        var active: [String: Int] = [:]
        var mostActive: [String: Int] = [:]
        var mostActiveInAll = 0
    }

    private let recorder: WebhookRecorder
    private let server: HTTPServer

    init(_ behaviour: @escaping Behaviour = { _, _ in Reply() }) throws {
        recorder = WebhookRecorder(behaviour: behaviour)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .milliseconds(200)
        // Every delivery comes from 127.0.0.1: the per-client cap would turn
        // the dispatcher's connections beyond 64 away.
        configuration.connectionsPerClient = configuration.connectionLimit
        server = HTTPServer(
            configuration: configuration,
            responder: recorder,
            logger: Logger(label: "receiver", logLevel: .error, sink: CapturingLogSink()),
            metrics: MetricsRegistry()
        )
        try server.start()
    }

    func url(_ path: String) -> String {
        "http://127.0.0.1:\(server.boundPort)\(path)"
    }

    func setBehaviour(_ behaviour: @escaping Behaviour) {
        recorder.behaviour.withLock { $0 = behaviour }
    }

    func stop() {
        server.stop()
    }

    func requests(_ path: String? = nil) -> [Received] {
        recorder.state.withLock { state in path.map { path in state.received.filter { $0.path == path } } ?? state.received }
    }

    /// The most requests one path had in progress at the same time.
    func mostConcurrent(_ path: String) -> Int {
        recorder.state.withLock { $0.mostActive[path] ?? 0 }
    }

    /// The most requests all paths together had in progress at the same time.
    func mostConcurrentInAll() -> Int {
        recorder.state.withLock { $0.mostActiveInAll }
    }
}
