public import Foundation

/// An error answer of the server: RFC 9457 problem details, as Tidings
/// sends them for every 4xx and 5xx.
///
/// A non-problem error answer (a proxy's HTML page, say) becomes a problem
/// with its status and the status's standard title.
public struct TidingsProblem: Sendable, Hashable {
    /// The HTTP status code.
    public let status: Int
    /// The problem type URI, such as `urn:tidings:problem:rate-limited`;
    /// `about:blank` when the status says it all.
    public let type: String
    /// A short summary of the problem type.
    public let title: String
    /// What went wrong with this request, for the app's developer.
    public let detail: String?
    /// The field or parameter the server refused, for 400 and 422.
    public let field: String?
    /// The id the server logged the request under (`request_id`, or the
    /// `X-Request-Id` header); quote it when reporting a problem.
    public let requestID: String?
    /// How long to wait before asking again, from `Retry-After` (seconds or
    /// an HTTP date) or the body's `retry_after`, on 429 and 503.
    public let retryAfter: Duration?
    /// The limit that refused the request (`watches`, `checks_per_watch`,
    /// `streams_per_user`, ...).
    public let limit: String?

    /// The problem type of a sync cursor the server can no longer resume
    /// from (HTTP 410): resync from the start.
    public static let resyncType = "urn:tidings:problem:resync"
    /// The problem type of a refused request past a per-user limit (403).
    public static let limitExceededType = "urn:tidings:problem:limit-exceeded"
    /// The problem type of a request past a rate (429).
    public static let rateLimitedType = "urn:tidings:problem:rate-limited"

    /// Creates a problem; the client builds these from answers, tests and
    /// previews may build their own.
    public init(
        status: Int, type: String = "about:blank", title: String, detail: String? = nil, field: String? = nil,
        requestID: String? = nil, retryAfter: Duration? = nil, limit: String? = nil
    ) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.field = field
        self.requestID = requestID
        self.retryAfter = retryAfter
        self.limit = limit
    }
}
