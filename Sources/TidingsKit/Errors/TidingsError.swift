public import Foundation

/// Every error a ``TidingsClient`` call throws, apart from
/// `CancellationError` when its task is cancelled.
public enum TidingsError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error status; the problem says why.
    case problem(TidingsProblem)
    /// The answer did not match the API contract: truncated or malformed
    /// JSON, a field of the wrong type, an event stream that was not one.
    /// `status` is the HTTP status of the answer (0 when there was none).
    case invalidResponse(status: Int, reason: String)
    /// The answer's body was larger than the client accepts
    /// (``TidingsClient/maximumResponseSize``); it was not read further.
    case responseTooLarge(limit: Int)
    /// The server could not be reached, or the connection broke. The
    /// underlying error is usually a `URLError`.
    case transport(any Error)

    /// The problem of an error answer, if this is one.
    public var problem: TidingsProblem? {
        if case .problem(let problem) = self { return problem }
        return nil
    }

    /// Whether asking again later may succeed: connection failures, 408,
    /// 429 and 5xx answers. The others need a change by the app first.
    public var isTransient: Bool {
        switch self {
        case .problem(let problem):
            return problem.status == 408 || problem.status == 429 || problem.status >= 500
        case .transport:
            return true
        case .invalidResponse, .responseTooLarge:
            return false
        }
    }

    /// A one-line description for logs.
    public var description: String {
        switch self {
        case .problem(let problem):
            var text = "\(problem.status) \(problem.title)"
            if let detail = problem.detail { text += ": \(detail)" }
            if let requestID = problem.requestID { text += " (request \(requestID))" }
            return text
        case .invalidResponse(let status, let reason):
            return "invalid response (status \(status)): \(reason)"
        case .responseTooLarge(let limit):
            return "response larger than \(limit) bytes"
        case .transport(let error):
            return "transport error: \(error)"
        }
    }
}
