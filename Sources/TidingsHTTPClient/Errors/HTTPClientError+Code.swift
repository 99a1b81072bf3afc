extension HTTPClientError {
    /// The kind of failure, open for new cases without breaking callers.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The URL cannot be parsed or has no host.
        package static let invalidURL = Code("invalid_url")
        /// A method or header contains characters that would corrupt the request.
        package static let invalidRequest = Code("invalid_request")
        /// Not http or https, on the first request or on a redirect hop.
        package static let unsupportedScheme = Code("unsupported_scheme")
        /// The SSRF guard refused the address being connected to.
        package static let blockedAddress = Code("blocked_address")
        package static let dnsFailure = Code("dns_failure")
        package static let connectionFailed = Code("connection_failed")
        /// The connect timeout or the total request timeout passed.
        package static let timeout = Code("timeout")
        package static let tlsFailure = Code("tls_failure")
        package static let responseTooLarge = Code("response_too_large")
        package static let tooManyRedirects = Code("too_many_redirects")
        /// The server answered with something that is not an HTTP response
        /// (a status line out of range or not HTTP/1.x or 2, HTTP/0.9).
        package static let malformedResponse = Code("malformed_response")
        /// The client was shut down before the request finished.
        package static let shutdown = Code("shutdown")
        /// The awaiting task was cancelled.
        package static let cancelled = Code("cancelled")
        /// Any other failure while exchanging data.
        package static let transport = Code("transport")
    }
}
