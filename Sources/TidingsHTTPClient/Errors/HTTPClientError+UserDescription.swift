extension HTTPClientError {
    /// The failure as the owner of a watch or webhook sees it (`last_error`,
    /// API answers): a fixed text per kind that names no address, port or
    /// resolver detail. libcurl's text can name the address it tried, and a
    /// refusal names the blocked range a host resolved to: told to a tenant,
    /// either maps the internal network. `message` keeps the detail for the
    /// operator's log.
    package var userDescription: String {
        "\(code): \(userMessage)"
    }

    /// `userDescription` without the code.
    package var userMessage: String {
        switch code {
        case .blockedAddress: "the target is not allowed: its address is not publicly reachable"
        case .dnsFailure: "the host name could not be resolved"
        case .connectionFailed: "could not connect to the host"
        case .tlsFailure: "the TLS handshake or the certificate check failed"
        case .transport: "the connection failed while exchanging data"
        case .unsupportedScheme: "only http and https URLs are supported"
        case .malformedResponse: "the server's answer is not a valid HTTP response"
        // The rest are texts Tidings writes itself from its own limits.
        default: message
        }
    }
}
