/// One response body and what has been parsed from it, shared by every
/// rule that extracts from it, so the body is parsed once per response
/// whatever the number of watches and rules (decision 0027).
///
/// Used by one thread at a time (libxml2 documents are not safe for
/// concurrent use): a check hands it from one extraction job to the next
/// only after the previous job returned, and drops it when a job is
/// abandoned, since that job may still be using it.
package final class ResponseContent: @unchecked Sendable {
    /// What the body is, for the readable default.
    package enum Kind: Sendable, Equatable {
        case html
        case json
        case text
    }

    let body: [UInt8]
    let contentType: String?
    package let kind: Kind
    private var html: Result<HTMLDocument, any Error>?
    private var json: Result<JSONValue, any Error>?

    package init(body: [UInt8], contentType: String?) {
        self.body = body
        self.contentType = contentType
        kind = Self.kind(of: body, contentType: contentType)
    }

    /// The body parsed as HTML, the first time within `budget`; a failure
    /// (time limit included) is the answer for every later rule too, which
    /// has the same body and the same limits.
    func htmlDocument(budget: ExtractionBudget) throws -> HTMLDocument {
        if let html { return try html.get() }
        let parsed = Result { try HTMLDocument(bytes: body, encoding: ContentType.charset(in: contentType), budget: budget) }
        html = parsed
        return try parsed.get()
    }

    func jsonValue() throws -> JSONValue {
        if let json { return try json.get() }
        let parsed = Result { try JSONValue(parsing: body) }
        json = parsed
        return try parsed.get()
    }

    /// HTML and JSON by their media type; without one (or with
    /// `application/octet-stream`), by the first bytes: `<!doctype html`
    /// or `<html` is HTML, `{` or `[` JSON. Everything else is text.
    static func kind(of body: [UInt8], contentType: String?) -> Kind {
        let mediaType = ContentType.mediaType(in: contentType)
        switch mediaType {
        case "text/html", "application/xhtml+xml":
            return .html
        case "application/json":
            return .json
        case let type where type.hasSuffix("+json"):
            return .json
        case "", "application/octet-stream":
            break
        default:
            return .text
        }
        var start = 0
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < body.count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(body[start]) { start += 1 }
        let head = body[start..<min(start + 14, body.count)].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        if head.starts(with: Array("<!doctype html".utf8)) || head.starts(with: Array("<html".utf8)) { return .html }
        if head.first == UInt8(ascii: "{") || head.first == UInt8(ascii: "[") { return .json }
        return .text
    }
}
