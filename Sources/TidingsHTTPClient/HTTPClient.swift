package import TidingsObservability
import TidingsSynchronization

/// An HTTP/1.1 and HTTP/2 client on libcurl's multi interface: many
/// transfers in flight on one thread, keep-alive reuse, timeouts, a response
/// size cap, a redirect limit, http/https only, TLS always verified, and an
/// SSRF guard applied to every address actually connected to (unless the
/// client only ever requests operator-configured URLs). Per client, HTTP/2
/// streams can be multiplexed on one connection per host and an extra CA
/// file trusted (`HTTPClientConfiguration`).
package final class HTTPClient: Service {
    package let configuration: HTTPClientConfiguration
    private let driver: CurlMultiDriver

    /// Starts the driver thread; call `stop()` when done. Throws an
    /// `HTTPClientError` (untyped, so callers' `do` blocks can mix it with
    /// other errors).
    package init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(), logger: Logger) throws {
        self.configuration = configuration
        self.driver = try CurlMultiDriver(configuration: configuration, logger: logger)
    }

    deinit {
        driver.stop()
    }

    /// Runs a request. Cancelling the task aborts it with `.cancelled`.
    package func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        try request.validate()
        let relay = CancellationRelay()
        let driver = self.driver
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let id = driver.makeTransferID()
                driver.submit(id: id, request: request) { continuation.resume(returning: $0) }
                if relay.submitted(id) { driver.cancel(id: id) }
            }
        } onCancel: {
            if let id = relay.cancel() { driver.cancel(id: id) }
        }
        return try result.get()
    }

    /// Runs a request and calls `completion` exactly once: on the driver
    /// thread (keep it short, never block in it), or on the calling thread
    /// when the request is rejected before it starts.
    package func execute(
        _ request: HTTPClientRequest,
        completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        do {
            try request.validate()
        } catch {
            completion(.failure(error))
            return
        }
        driver.submit(id: driver.makeTransferID(), request: request, completion: completion)
    }

    /// Fails unfinished requests with `.shutdown`, stops and joins the driver
    /// thread and frees libcurl's handles. Safe to call more than once.
    package func stop(deadline: ContinuousClock.Instant) {
        driver.stop()
    }

    /// The driver thread starts with the client: nothing left to start.
    package func start() {}
}
