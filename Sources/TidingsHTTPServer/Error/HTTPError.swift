/// An error that knows its response: an RFC 9457 problem document
/// (`application/problem+json`). Handlers throw it for every expected
/// failure; any other error reaching the server becomes a generic 500.
///
/// Everything here is sent to the client, so `detail` must describe the
/// client's problem, never internals.
package struct HTTPError: Error, Sendable, CustomStringConvertible {
    package var status: HTTPStatus
    /// A short summary; defaults to the status's reason phrase.
    package var title: String
    package var detail: String?
    /// A URI identifying the problem type; `about:blank` means the status says it all.
    package var type: String
    /// Extra response headers such as `Allow`, `Retry-After` or `WWW-Authenticate`.
    package var headers: HTTPHeaders
    /// Extra members of the problem document (for example `field`).
    package var extensions: [String: String]
    /// Extra members whose values are numbers (for example a limit's
    /// `maximum`), written as JSON integers.
    package var integerExtensions: [String: Int]

    package init(
        _ status: HTTPStatus,
        detail: String? = nil,
        title: String? = nil,
        type: String = "about:blank",
        headers: HTTPHeaders = HTTPHeaders(),
        extensions: [String: String] = [:],
        integerExtensions: [String: Int] = [:]
    ) {
        self.status = status
        self.title = title ?? status.reasonPhrase
        self.detail = detail
        self.type = type
        self.headers = headers
        self.extensions = extensions
        self.integerExtensions = integerExtensions
    }

    package var description: String {
        "HTTPError(\(status.code)\(detail.map { ": \($0)" } ?? ""))"
    }

    /// The problem response, without a request id.
    package var response: HTTPResponse {
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
