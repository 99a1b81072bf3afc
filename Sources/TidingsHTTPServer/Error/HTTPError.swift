/// An error that knows its response: an RFC 9457 problem document
/// (`application/problem+json`). Handlers throw it for every expected
/// failure; any other error reaching the server becomes a generic 500.
///
/// Everything here is sent to the client, so `detail` must describe the
/// client's problem, never internals.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPStatus
    /// A short summary; defaults to the status's reason phrase.
    public var title: String
    public var detail: String?
    /// A URI identifying the problem type; `about:blank` means the status says it all.
    public var type: String
    /// Extra response headers such as `Allow`, `Retry-After` or `WWW-Authenticate`.
    public var headers: HTTPHeaders
    /// Extra members of the problem document (for example `field`).
    public var extensions: [String: String]

    public init(
        _ status: HTTPStatus,
        detail: String? = nil,
        title: String? = nil,
        type: String = "about:blank",
        headers: HTTPHeaders = HTTPHeaders(),
        extensions: [String: String] = [:]
    ) {
        self.status = status
        self.title = title ?? status.reasonPhrase
        self.detail = detail
        self.type = type
        self.headers = headers
        self.extensions = extensions
    }

    public var description: String {
        "HTTPError(\(status.code)\(detail.map { ": \($0)" } ?? ""))"
    }

    /// The problem response, without a request id.
    public var response: HTTPResponse {
        response(requestID: nil)
    }

    /// The problem response; the server passes the request id so clients can
    /// quote it.
    func response(requestID: String?) -> HTTPResponse {
        var headers = self.headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/problem+json")
        let document = ProblemDocument(error: self, requestID: requestID)
        return HTTPResponse(status: status, headers: headers, body: document.encoded())
    }
}
