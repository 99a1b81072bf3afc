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
        headers.first { Self.isSameName($0.name, name) }?.value
    }

    /// Every value of a header, in received order, matched case-insensitively.
    package func headerValues(_ name: String) -> [String] {
        headers.compactMap { Self.isSameName($0.name, name) ? $0.value : nil }
    }

    /// Field names compared in ASCII case (RFC 9110 §5.1) without a
    /// lowercased copy of each: a check looks up several headers of every
    /// response.
    private static func isSameName(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count
            && lhs.utf8.elementsEqual(rhs.utf8) { $0 | Self.asciiCaseBit(of: $0) == $1 | Self.asciiCaseBit(of: $1) }
    }

    /// 0x20 for an ASCII letter, which folds its case when OR-ed in; 0 for
    /// any other byte, which is compared as it is.
    private static func asciiCaseBit(of byte: UInt8) -> UInt8 {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") ? 0x20 : 0
    }
}
