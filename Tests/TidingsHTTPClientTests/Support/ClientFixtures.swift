import TidingsHTTPClient
import TidingsObservability

/// A client allowed to reach loopback (the test origin), with its log lines captured.
func makeClient(
    logSink: CapturingLogSink = CapturingLogSink(),
    _ configure: (inout HTTPClientConfiguration) -> Void = { _ in }
) throws -> HTTPClient {
    var configuration = HTTPClientConfiguration(allowPrivateTargets: true)
    configure(&configuration)
    return try HTTPClient(configuration: configuration, logger: Logger(label: "test", logLevel: .trace, sink: logSink))
}

/// The error a request fails with, or nil if it succeeded.
func failure(of request: HTTPClientRequest, on client: HTTPClient) async -> HTTPClientError? {
    do {
        _ = try await client.execute(request)
        return nil
    } catch {
        return error
    }
}

extension HTTPClientResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
