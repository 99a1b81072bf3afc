/// The final response of a request (after any redirects it followed).
package struct HTTPClientResponse: Sendable {
    package var status: Int
    /// Headers of the final response only, in received order.
    package var headers: [(name: String, value: String)]
    /// The decoded body (gzip, br and zstd are undone).
    package var body: [UInt8]
    package var effectiveURL: String
    package var redirectCount: Int
    package var duration: Duration
    /// The IP address the final response came from.
    package var remoteAddress: String?
    /// Body bytes as received on the wire, before decoding.
    package var bytesReceived: Int
    /// Header bytes received, of every response of the request (redirect
    /// hops and interim responses included).
    package var headerBytesReceived: Int
    /// True when `body` was cut at the limit (requests with `truncatesResponseBody`).
    package var isBodyTruncated: Bool

    package init(
        status: Int,
        headers: [(name: String, value: String)],
        body: [UInt8],
        effectiveURL: String,
        redirectCount: Int,
        duration: Duration,
        remoteAddress: String?,
        bytesReceived: Int,
        headerBytesReceived: Int = 0,
        isBodyTruncated: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.effectiveURL = effectiveURL
        self.redirectCount = redirectCount
        self.duration = duration
        self.remoteAddress = remoteAddress
        self.bytesReceived = bytesReceived
        self.headerBytesReceived = headerBytesReceived
        self.isBodyTruncated = isBodyTruncated
    }

    /// The first value of a header, matched case-insensitively.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
