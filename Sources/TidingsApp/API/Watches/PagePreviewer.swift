import TidingsDomain
import TidingsExtraction
import TidingsHTTPClient
import TidingsObservability
import TidingsSynchronization

/// Fetches a page once and runs a rule on it, for `POST /v1/watches/preview`:
/// the poller's client settings (SSRF guard on every connected address,
/// size cap, timeouts) and extraction limits, on a client of its own that
/// starts with the first preview, so a server nobody previews on runs no
/// extra thread, and stops when the routes are released (`HTTPClient`'s
/// deinit). The handler thread waits for the answer, as for a check.
final class PagePreviewer: Sendable {
    enum Outcome {
        case extracted(status: Int, contentType: String?, content: ExtractedContent)
        case fetchFailed(String)
        case answered(status: Int)
        case extractionFailed(ExtractionError)
        case timedOut
    }

    private let clientConfiguration: HTTPClientConfiguration
    private let limits: ExtractionLimits
    private let logger: Logger
    private let client = AdaptiveMutex<HTTPClient?>(nil)

    init(clientConfiguration: HTTPClientConfiguration, limits: ExtractionLimits, logger: Logger) {
        self.clientConfiguration = clientConfiguration
        self.limits = limits
        self.logger = logger
    }

    func preview(url: String, rule: ExtractionRule?) throws -> Outcome {
        let started = try client.withLock { client in
            if let client { return client }
            let made = try HTTPClient(configuration: clientConfiguration, logger: logger)
            client = made
            return made
        }
        let answer = AdaptiveMutex<Result<HTTPClientResponse, HTTPClientError>?>(nil)
        let done = WakeSignal()
        started.execute(HTTPClientRequest(url: url)) { result in
            answer.withLock { $0 = result }
            done.wake()
        }
        // The client's own timeouts end every request; this only guards
        // against waiting forever should that fail.
        let waitLimit = clientConfiguration.timeout + .seconds(10)
        let deadline = ContinuousClock.now + waitLimit
        var result: Result<HTTPClientResponse, HTTPClientError>?
        while result == nil, ContinuousClock.now < deadline {
            _ = done.wait(timeout: ContinuousClock.now.duration(to: deadline))
            result = answer.withLock { $0 }
        }
        switch result {
        case nil:
            return .timedOut
        case .failure(let error):
            return .fetchFailed(error.userDescription)
        case .success(let response):
            guard (200..<300).contains(response.status) else { return .answered(status: response.status) }
            let contentType = response.header("Content-Type")
            do {
                let content = try ContentExtractor.extract(
                    body: response.body, contentType: contentType, spec: ExtractionSpec(rule: rule), limits: limits)
                return .extracted(status: response.status, contentType: contentType, content: content)
            } catch let error as ExtractionError {
                return .extractionFailed(error)
            }
        }
    }

}
