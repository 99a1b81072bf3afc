/// Listening address, threading and the limits that keep slow or
/// abusive clients from pinning the server.
package struct HTTPServerConfiguration: Sendable {
    /// An IP address literal (IPv4 or IPv6) or `localhost`.
    package var host: String
    /// 0 picks an ephemeral port; read it from `HTTPServer.boundPort`.
    package var port: Int
    /// Which thread serves which connection (handlers run inline on it).
    package var threading: HTTPServerThreading
    /// Most connections open at once, and so, with `.threadPerConnection`,
    /// most connection threads. At the limit a new connection takes the
    /// place of an idle or slow one of the client holding the most (at
    /// least two more than the newcomer's client); when there is none it is
    /// closed unanswered. Streams and running handlers are never shed.
    package var connectionLimit: Int
    /// A connection with no traffic for this long is closed (whole seconds, at least 1).
    package var connectionIdleTimeout: Duration
    /// A request's head and body must arrive within this long, however
    /// steadily they trickle in; past it the connection is closed (with a
    /// 408 once the request line is in). It runs from the connection's
    /// opening for its first request and from the request line for later
    /// ones (at most `connectionIdleTimeout` after the previous response).
    /// At least 1 second.
    package var requestTimeout: Duration
    /// A response must be taken by the client within this long of being
    /// queued (its last byte handed to the kernel); past it the connection
    /// is closed. A stream has no deadline as a whole: each piece sent on
    /// it must be taken within this long (`HTTPResponseStream`). At least
    /// 1 second.
    package var responseTimeout: Duration
    /// Most connections open at once from one client address (an IPv6
    /// /64), so that a few clients cannot take `connectionLimit` from
    /// everyone. Trusted proxies are exempt.
    package var connectionsPerClient: Int
    /// Peers whose `X-Forwarded-For` names the client (`HTTPRequest
    /// .remoteAddress`, the access log) and which the per-client cap spares.
    package var trustedProxies: TrustedProxies
    /// Larger request bodies answer 413.
    package var maxBodySize: Int
    /// Paths (exact) whose request bodies have a limit of their own in
    /// place of `maxBodySize`: an import file is larger than any API call.
    package var maxBodySizeByPath: [String: Int] = [:]
    /// Longer request targets (path and query) answer 414.
    package var maxURLLength: Int
    /// Budget for the request line and header fields together (enforced by
    /// libmicrohttpd's per-connection memory pool); header fields alone
    /// beyond it answer 431. 8 KiB, as Tomcat's and Jetty's defaults: the
    /// pool is this plus 8 KiB, and about half of it stays resident for
    /// as long as a response streams, so the budget sets what an open
    /// event stream costs (docs/BENCHMARKS.md, "Event streams").
    package var maxHeaderBytes: Int
    /// More header fields answer 431.
    package var maxHeaderCount: Int
    /// How long `stop` waits for in-flight requests.
    package var shutdownGracePeriod: Duration

    package init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        threading: HTTPServerThreading = .threadPerConnection,
        connectionLimit: Int = 1024,
        connectionIdleTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(30),
        responseTimeout: Duration = .seconds(30),
        connectionsPerClient: Int = 64,
        trustedProxies: TrustedProxies = TrustedProxies(),
        maxBodySize: Int = 1 << 20,
        maxURLLength: Int = 8192,
        maxHeaderBytes: Int = 8 * 1024,
        maxHeaderCount: Int = 100,
        shutdownGracePeriod: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.threading = threading
        self.connectionLimit = connectionLimit
        self.connectionIdleTimeout = connectionIdleTimeout
        self.requestTimeout = requestTimeout
        self.responseTimeout = responseTimeout
        self.connectionsPerClient = connectionsPerClient
        self.trustedProxies = trustedProxies
        self.maxBodySize = maxBodySize
        self.maxURLLength = maxURLLength
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.shutdownGracePeriod = shutdownGracePeriod
    }

    /// The body limit of a request to `path`.
    package func maxBodySize(forPath path: String) -> Int {
        maxBodySizeByPath[path] ?? maxBodySize
    }

    func validate() throws(HTTPServerError) {
        func require(_ condition: Bool, _ detail: String) throws(HTTPServerError) {
            if !condition { throw HTTPServerError(.invalidConfiguration, detail: detail) }
        }
        try require((0...65535).contains(port), "port must be between 0 and 65535, got \(port)")
        try threading.validate()
        try require(connectionLimit >= 1, "connectionLimit must be at least 1, got \(connectionLimit)")
        try require(connectionIdleTimeout >= .seconds(1), "connectionIdleTimeout must be at least 1 second")
        try require(requestTimeout >= .seconds(1), "requestTimeout must be at least 1 second")
        try require(responseTimeout >= .seconds(1), "responseTimeout must be at least 1 second")
        try require(connectionsPerClient >= 1, "connectionsPerClient must be at least 1, got \(connectionsPerClient)")
        try require(maxBodySize >= 0, "maxBodySize must not be negative")
        try require(maxBodySizeByPath.values.allSatisfy { $0 >= 0 }, "maxBodySizeByPath must not hold a negative size")
        try require(maxURLLength >= 1, "maxURLLength must be at least 1")
        try require(maxHeaderBytes >= 1024, "maxHeaderBytes must be at least 1024")
        try require(maxHeaderCount >= 1, "maxHeaderCount must be at least 1")
        try require(shutdownGracePeriod >= .zero, "shutdownGracePeriod must not be negative")
    }
}
