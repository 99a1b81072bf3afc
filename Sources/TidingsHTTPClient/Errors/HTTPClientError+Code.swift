extension HTTPClientError {
    /// The kind of failure, open for new cases without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The URL cannot be parsed or has no host.
        public static let invalidURL = Code("invalid_url")
        /// A method or header contains characters that would corrupt the request.
        public static let invalidRequest = Code("invalid_request")
        /// Not http or https, on the first request or on a redirect hop.
        public static let unsupportedScheme = Code("unsupported_scheme")
        /// The SSRF guard refused the address being connected to.
        public static let blockedAddress = Code("blocked_address")
        public static let dnsFailure = Code("dns_failure")
        public static let connectionFailed = Code("connection_failed")
        /// The connect timeout or the total request timeout passed.
        public static let timeout = Code("timeout")
        public static let tlsFailure = Code("tls_failure")
        public static let responseTooLarge = Code("response_too_large")
        public static let tooManyRedirects = Code("too_many_redirects")
        /// The client was shut down before the request finished.
        public static let shutdown = Code("shutdown")
        /// The awaiting task was cancelled.
        public static let cancelled = Code("cancelled")
        /// Any other failure while exchanging data.
        public static let transport = Code("transport")
    }
}
