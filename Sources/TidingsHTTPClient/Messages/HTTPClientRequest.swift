/// One request. The optional fields override the client configuration.
public struct HTTPClientRequest: Sendable {
    public var url: String
    public var method: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Total time for this request instead of `HTTPClientConfiguration.timeout`.
    public var timeout: Duration?
    public var followRedirects: Bool
    /// Body limit for this request instead of `HTTPClientConfiguration.maxResponseSize`.
    public var maxResponseSize: Int?
    /// When true, a body over the limit is cut at the limit (and the rest
    /// read and dropped) instead of failing with `.responseTooLarge`: for
    /// callers that keep only a snippet, such as the webhook delivery log.
    public var truncatesResponseBody: Bool

    public init(
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
