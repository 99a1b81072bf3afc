/// A response status code with its reason phrase. Equality and hashing use
/// the code only.
package struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    package static let ok = HTTPStatus(code: 200)
    package static let created = HTTPStatus(code: 201)
    package static let accepted = HTTPStatus(code: 202)
    package static let noContent = HTTPStatus(code: 204)
    package static let notModified = HTTPStatus(code: 304)
    package static let badRequest = HTTPStatus(code: 400)
    package static let unauthorized = HTTPStatus(code: 401)
    package static let forbidden = HTTPStatus(code: 403)
    package static let notFound = HTTPStatus(code: 404)
    package static let methodNotAllowed = HTTPStatus(code: 405)
    package static let requestTimeout = HTTPStatus(code: 408)
    package static let conflict = HTTPStatus(code: 409)
    package static let gone = HTTPStatus(code: 410)
    package static let payloadTooLarge = HTTPStatus(code: 413)
    package static let uriTooLong = HTTPStatus(code: 414)
    package static let unsupportedMediaType = HTTPStatus(code: 415)
    package static let unprocessableContent = HTTPStatus(code: 422)
    package static let tooManyRequests = HTTPStatus(code: 429)
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    package static let internalServerError = HTTPStatus(code: 500)
    package static let badGateway = HTTPStatus(code: 502)
    package static let serviceUnavailable = HTTPStatus(code: 503)

    package let code: Int
    package let reasonPhrase: String

    /// A status with the standard reason phrase for `code` (or "Unknown").
    package init(code: Int) {
        self.init(code: code, reasonPhrase: Self.standardReasonPhrase(for: code))
    }

    package init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    package var description: String { "\(code) \(reasonPhrase)" }

    package static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool {
        lhs.code == rhs.code
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    private static func standardReasonPhrase(for code: Int) -> String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Unknown"
        }
    }
}
