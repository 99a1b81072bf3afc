/// A fully received request, as handlers see it.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The percent-decoded path, without the query string.
    package var path: String
    /// Decoded query parameters in request order; a name may repeat.
    package var queryItems: [(String, String)]
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// The client's IP address as text, when known: the peer's, or behind a
    /// trusted proxy the client its `X-Forwarded-For` names.
    package var remoteAddress: String?

    package init(
        method: HTTPMethod,
        path: String,
        queryItems: [(String, String)] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// Query parameters by name; when a name repeats, the last value wins.
    package var query: [String: String] {
        Dictionary(queryItems, uniquingKeysWith: { _, last in last })
    }
}
