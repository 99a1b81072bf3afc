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
    }
}
