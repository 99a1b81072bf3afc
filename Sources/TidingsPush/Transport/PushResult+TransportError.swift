import TidingsHTTPClient

extension PushResult {
    /// A request that got no answer. Connection trouble, timeouts and a
    /// client shutting down are worth a retry; a request the client could
    /// not even form (a bad base URL or header) is not. The reason is the
    /// client's fixed user text, which names no address.
    init(transportError error: HTTPClientError, service: String) {
        let reason = "\(service): \(error.userDescription)"
        switch error.code {
        case .invalidURL, .invalidRequest, .unsupportedScheme, .blockedAddress:
            self = .failed(reason: reason)
        default:
            self = .retry(after: nil, reason: reason)
        }
    }
}
