import FoundationEssentials
import TidingsJSON

/// A complete response: status, headers and body bytes.
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` as JSON with sorted keys, unescaped slashes and ISO 8601
    /// dates with fractional seconds. Key names come from the caller's
    /// `CodingKeys`. A value that cannot be encoded (a programming error such
    /// as a NaN) yields a bare 500 problem rather than a crash.
    package static func json<T: Encodable>(_ value: T, status: HTTPStatus = .ok) -> HTTPResponse {
        guard let data = try? JSONCoding.encoder.encode(value) else {
            return HTTPError(.internalServerError).response
        }
        return HTTPResponse(
            status: status,
            headers: ["Content-Type": "application/json"],
            body: Array(data)
        )
    }

    /// A value that writes its own JSON (`JSONWritable`), skipping the
    /// encoder; the bytes are the same.
    package static func json<T: Encodable & JSONWritable>(_ value: T, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: value.jsonBytes)
    }

    package static func text(
        _ string: String,
        status: HTTPStatus = .ok,
        contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(string.utf8))
    }

    package static func noContent() -> HTTPResponse {
        HTTPResponse(status: .noContent)
    }
}
