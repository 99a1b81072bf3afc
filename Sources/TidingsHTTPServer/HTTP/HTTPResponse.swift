import FoundationEssentials
import TidingsJSON

/// A response: status, headers and body bytes, or a body streamed for as
/// long as the caller keeps sending.
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    /// Ignored when `stream` is set.
    package var body: [UInt8]
    /// When set, the body is what is sent through it, with chunked
    /// transfer coding (`HTTPServerThreading.suspending` only).
    package var stream: HTTPResponseStream?

    package init(
        status: HTTPStatus = .ok,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        stream: HTTPResponseStream? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// Server-Sent Events through `stream`. The default headers keep
    /// caches and nginx (`X-Accel-Buffering`) from holding events back.
    package static func eventStream(
        _ stream: HTTPResponseStream,
        headers: HTTPHeaders = [
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        ]
    ) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: headers, stream: stream)
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

    /// A value that writes its own JSON (`JSONWritable`), no encoder involved.
    package static func json<T: JSONWritable>(_ value: T, status: HTTPStatus = .ok) -> HTTPResponse {
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
