import TidingsDomain
import TidingsExtraction
import TidingsHTTPServer

/// `POST /v1/watches/preview`: what a rule extracts from a page as it is
/// now, before a watch is created or its rule saved (the dashboard's "test
/// this rule"). Nothing is stored. The URL passes the same address policy
/// as a watch's, and every connected address the SSRF guard; the work
/// stays within the extraction limits of a check. Each call takes a token
/// of the caller's `previews` rate, at `TIDINGS_CHECK_NOW_USER_RATE`
/// (counted apart from checks), before anything is fetched.
struct WatchPreviewController: Sendable {
    let authenticator: Authenticator
    let addresses: TargetAddressPolicy
    let previewer: PagePreviewer
    let rates: RateLimitedAction

    /// Lines of extracted text an answer carries at most.
    static let maximumLines = 1000

    func register(on router: inout Router) {
        router.post("/v1/watches/preview", use: preview)
    }

    @Sendable func preview(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let body = try request.decodeJSON(PreviewWatchBody.self)
        try addresses.check(host: body.url.host, field: "url")
        try rates.admit(caller: userID, subject: userID)
        switch try previewer.preview(url: body.url.text, rule: body.extract) {
        case .extracted(let status, let contentType, let content):
            var lines = content.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines == [""] { lines = [] }
            let cut = lines.count > Self.maximumLines
            return .json(
                WatchPreviewRepresentation(
                    url: body.url.text,
                    httpStatus: status,
                    contentType: contentType,
                    lines: Array(lines.prefix(Self.maximumLines)),
                    truncated: cut || content.isTruncated
                ))
        // What the page did is the caller's problem to fix, not this
        // server's failure: a 422 naming the field, never a 5xx.
        case .answered(let status):
            throw HTTPError.field("url", "the page answered HTTP \(status); a check would fail the same way")
        case .fetchFailed(let reason):
            throw HTTPError.field("url", "the page could not be fetched: \(reason)")
        case .timedOut:
            throw HTTPError.field("url", "the page did not answer in time")
        case .extractionFailed(let error):
            throw HTTPError.field("extract", "the rule failed on this page: \(error.message)")
        }
    }
}

/// The answer of a preview: the page's status and type, and the lines the
/// rule extracted, as a check would compare them.
struct WatchPreviewRepresentation: Encodable {
    let url: String
    let httpStatus: Int
    let contentType: String?
    let lines: [String]
    let truncated: Bool

    enum CodingKeys: String, CodingKey {
        case url, lines, truncated
        case httpStatus = "http_status"
        case contentType = "content_type"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(httpStatus, forKey: .httpStatus)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(lines, forKey: .lines)
        try container.encode(truncated, forKey: .truncated)
    }
}
