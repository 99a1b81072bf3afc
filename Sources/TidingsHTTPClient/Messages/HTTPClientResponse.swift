/// The final response of a request (after any redirects it followed).
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// Headers of the final response only, in received order.
    public var headers: [(name: String, value: String)]
    /// The decoded body (gzip, br and zstd are undone).
    public var body: [UInt8]
    public var effectiveURL: String
    public var redirectCount: Int
    public var duration: Duration
    /// The IP address the final response came from.
    public var remoteAddress: String?
    /// Body bytes as received on the wire, before decoding.
    public var bytesReceived: Int
    /// Header bytes received, of every response of the request (redirect
    /// hops and interim responses included).
    public var headerBytesReceived: Int
    /// True when `body` was cut at the limit (requests with `truncatesResponseBody`).
    public var isBodyTruncated: Bool

    public init(
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
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
