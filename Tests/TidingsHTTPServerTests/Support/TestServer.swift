import TidingsHTTPServer
import TidingsObservability
import TidingsSynchronization
import TidingsTestSupport

/// A real server on 127.0.0.1 with an ephemeral port, its captured log lines
/// and its metrics.
final class TestServer: Sendable {
    let server: HTTPServer
    let logSink = CapturingLogSink()
    let metrics = MetricsRegistry()

    init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), router: Router) throws {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        server = HTTPServer(
            configuration: configuration,
            responder: router,
            logger: Logger(label: "http-test", logLevel: .debug, sink: logSink),
            metrics: metrics
        )
        try server.start()
    }

    deinit {
        server.stop()
    }

    var port: Int { server.boundPort }

    func connect(from sourceAddress: String = "127.0.0.1", receiveTimeoutSeconds: Int = 10) throws -> RawHTTPConnection {
        try RawHTTPConnection(port: port, sourceAddress: sourceAddress, receiveTimeoutSeconds: receiveTimeoutSeconds)
    }

    /// One request on a fresh connection.
    func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) throws -> RawHTTPResponse {
        try connect().request(method, target, headers: headers, body: body)
    }

    /// Log lines are written after the response is sent, so wait briefly
    /// for the one that mentions `needle`.
    func logLine(containing needle: String) -> String? {
        var found: String?
        _ = eventuallyBlocking(
            timeout: .seconds(3),
            {
                found = logSink.lines.first { $0.contains(needle) }
                return found != nil
            })
        return found
    }
}
