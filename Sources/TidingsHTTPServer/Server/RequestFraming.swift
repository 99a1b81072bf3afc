/// Where a request says its body ends, judged from its head before any of
/// the body is read. A request that two HTTP parsers could read
/// differently is refused (RFC 9112, sections 5.1, 6.1 and 6.3): behind a
/// proxy that takes the other reading, the rest of its body would be a
/// second request that the proxy never saw (request smuggling). Refused
/// before the body, the connection is closed rather than read on.
struct RequestFraming: Sendable {
    /// The values of every `Content-Length` field, in order.
    var contentLengths: [String]
    /// The values of every `Transfer-Encoding` field, in order.
    var transferEncodings: [String]
    /// Whether a field name holds whitespace or a control character
    /// (`Transfer-Encoding : chunked`), which some parsers trim.
    var hasMalformedFieldName: Bool

    var problem: HTTPError? {
        if hasMalformedFieldName {
            return HTTPError(.badRequest, detail: "A header field name contains whitespace or a control character.")
        }
        if contentLengths.count > 1 {
            return HTTPError(.badRequest, detail: "The request has more than one Content-Length field.")
        }
        if let length = contentLengths.first,
            length.isEmpty || !length.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        {
            return HTTPError(.badRequest, detail: "Content-Length must be a decimal number of bytes.")
        }
        guard !transferEncodings.isEmpty else { return nil }
        if !contentLengths.isEmpty {
            return HTTPError(.badRequest, detail: "The request has both Transfer-Encoding and Content-Length.")
        }
        // Optional whitespace around the commas is all a list may add, and
        // only ASCII letters change case (a Kelvin sign is not a k), as in
        // header names.
        let codings = transferEncodings.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { String($0.filter { $0 != " " && $0 != "\t" }) }
        if codings.count != 1 || !HTTPHeaders.namesMatch(codings[0], "chunked") {
            return HTTPError(.badRequest, detail: "The only transfer coding accepted is chunked, once.")
        }
        return nil
    }

    /// Whether `name` (a field name as received) cannot be a token.
    static func isMalformedFieldName<Bytes: Sequence>(_ name: Bytes) -> Bool where Bytes.Element == UInt8 {
        name.contains { $0 <= 0x20 || $0 == 0x7F }
    }
}
