/// One request. The optional fields override the client configuration.
package struct HTTPClientRequest: Sendable {
    package var url: String
    package var method: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]?
    /// Total time for this request instead of `HTTPClientConfiguration.timeout`.
    package var timeout: Duration?
    package var followRedirects: Bool
    /// Body limit for this request instead of `HTTPClientConfiguration.maxResponseSize`.
    package var maxResponseSize: Int?
    /// When true, only a snippet of the answer is kept: a body over the
    /// limit is cut at the limit and the transfer ends there (nothing more
    /// is read) instead of failing with `.responseTooLarge`, and no
    /// `Accept-Encoding` is sent, so no decoder runs on the answer. For
    /// callers that only log or glance at the answer: webhook deliveries,
    /// pushes.
    package var truncatesResponseBody: Bool

    package init(
        url: String,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = nil
        self.followRedirects = true
        self.maxResponseSize = nil
        self.truncatesResponseBody = false
    }
}
