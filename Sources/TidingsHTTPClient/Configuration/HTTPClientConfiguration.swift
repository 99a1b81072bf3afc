package import TidingsIP

/// Limits and identity shared by every request of one `HTTPClient`.
package struct HTTPClientConfiguration: Sendable {
    /// Time allowed to establish the TCP (and TLS) connection.
    package var connectTimeout: Duration
    /// Time allowed for a whole request, redirects included.
    package var timeout: Duration
    /// Largest body accepted, counted after content decoding.
    package var maxResponseSize: Int
    package var maxRedirects: Int
    /// Lets requests reach loopback and private addresses
    /// (`TIDINGS_ALLOW_PRIVATE_TARGETS`); for local use and tests only.
    package var allowPrivateTargets: Bool
    /// Addresses allowed even when private targets are not (see `SSRFGuard`).
    package var allowedAddresses: Set<IPAddress> = []
    package var userAgent: String
    /// Concurrent connections to one host; 0 means unlimited. Transfers over
    /// the limit wait in libcurl's queue (their timeout keeps running).
    package var maxConnectionsPerHost: Int
    /// Concurrent connections overall, and the size of the keep-alive cache.
    package var maxTotalConnections: Int
    /// Whose URLs the client requests: tenants' (the SSRF guard applies,
    /// the default) or only the operator's (it does not).
    package var urlSource: URLSource = .tenants
    /// A PEM file of CA certificates to trust for this client's TLS
    /// connections (`TIDINGS_PUSH_CA_FILE`: a test CA, a private gateway's).
    /// It takes the place of libcurl's default CA bundle file; the system CA
    /// directory libcurl was built with (on Debian /etc/ssl/certs, which
    /// holds the same public roots) stays trusted, so public services keep
    /// working. Certificates are verified either way, always.
    package var extraCAFile: String?
    /// Many concurrent HTTP/2 streams per connection (push services); nil
    /// for libcurl's defaults.
    package var http2Multiplexing: HTTP2Multiplexing?

    package init(
        connectTimeout: Duration = .seconds(10),
        timeout: Duration = .seconds(30),
        maxResponseSize: Int = 5 << 20,
        maxRedirects: Int = 5,
        allowPrivateTargets: Bool = false,
        userAgent: String = "Tidings/0.1 (+https://github.com/tidings)",
        maxConnectionsPerHost: Int = 0,
        maxTotalConnections: Int = 256
    ) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseSize = maxResponseSize
        self.maxRedirects = maxRedirects
        self.allowPrivateTargets = allowPrivateTargets
        self.userAgent = userAgent
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxTotalConnections = maxTotalConnections
    }
}
